import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// A host started with relative paths (`--socket host.sock --data-dir data --file photo.png`) in
/// one working directory, driven by clients in another: every path it hands out (the input
/// items, the container, what the completion record carries back) is absolute and usable there.
/// The flow is seed 004's action: read the shared image, save a copy into the app group's
/// container, record its name in the group's preferences, and hand its path back with `exit`.
@Suite struct HostPathsTests {
    /// `host/` (the host's working directory, with photo.png in it) and `client/`, in a fresh
    /// test directory.
    struct Workspace {
        let directory: TestDirectory
        var host: String { directory.path + "/host" }
        var client: String { directory.path + "/client" }

        init() throws {
            directory = try TestDirectory()
            #expect(mkdir(directory.path + "/host", 0o700) == 0)
            #expect(mkdir(directory.path + "/client", 0o700) == 0)
            _ = try directory.write("host/photo.png", "PNG bytes")
        }

        /// Runs `channelbridge ARGUMENTS --socket ../host/host.sock` in `client/`.
        func channelbridge(_ arguments: [String]) async throws -> ProcessRunner.Outcome {
            try await ProcessRunner.runOnThread(
                "channelbridge", arguments + ["--socket", "../host/host.sock"],
                currentDirectory: URL(fileURLWithPath: client))
        }
    }

    static let relativeArguments = ["--socket", "host.sock", "--data-dir", "data", "--file", "photo.png"]

    @Test func everyPathTheHostHandsOutIsAbsoluteAndUsableFromAnotherDirectory() async throws {
        try await withHangGuard(seconds: 30) {
            let workspace = try Workspace()
            defer { workspace.directory.remove() }
            let host = try HostProcess(Self.relativeArguments, currentDirectory: workspace.host)
            #expect(try await host.readyLine() == "ready host.sock")
            try await Self.runAction(workspace, host: host, hostDirectory: workspace.host)
        }
    }

    /// The working directory is taken as the shell shows it (`$PWD`), so a symbolic link the user
    /// went through stays in the paths.
    @Test func aSymbolicLinkInTheWorkingDirectoryIsKept() async throws {
        try await withHangGuard(seconds: 30) {
            let workspace = try Workspace()
            defer { workspace.directory.remove() }
            let link = workspace.directory.path + "/link"
            #expect(symlink(workspace.host, link) == 0)
            var environment = ProcessInfo.processInfo.environment
            environment["PWD"] = link
            let host = try HostProcess(Self.relativeArguments, environment: environment, currentDirectory: link)
            #expect(try await host.readyLine() == "ready host.sock")
            try await Self.runAction(workspace, host: host, hostDirectory: link)
        }
    }

    /// Seed 004's action from `client/`, checking each path against `hostDirectory`.
    static func runAction(_ workspace: Workspace, host: HostProcess, hostDirectory: String) async throws {
        let container = hostDirectory + "/data/app-groups/group.local/container"
        let items = try await workspace.channelbridge(["items", "--json"])
        #expect(items.stderr == "")
        #expect(
            items.stdout == #"[{"attachments":[{"typeIdentifier":"public.image","path":""#
                + container + #"/photo.png","name":"photo.png"}]}]"# + "\n")
        let answered = try await workspace.channelbridge(
            ["call", "channelbridge/extension", "getAppGroupContainer", #"{"appGroup": "group.local"}"#])
        #expect(answered.stdout == "\"\(container)\"\n")
        // The action, a process of its own in client/: reads the shared image at the path it was
        // given, saves it into the container, and records the copy's name.
        let saved = try await ProcessRunner.runOnThread(
            "/bin/cp", [container + "/photo.png", container + "/latest.png"],
            currentDirectory: URL(fileURLWithPath: workspace.client))
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try await workspace.channelbridge(["prefs", "set", "latestImagePath", "latest.png"]).status == 0)
        let exit = try await workspace.channelbridge(
            ["call", "channelbridge/extension", "exit", "[{\"path\": \"\(container)/latest.png\"}]"])
        #expect(exit.status == 0, "\(exit.stderr)")
        let ended = await host.waitForExit()
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(
            ended.stdoutLines.last == #"{"outcome":"completed","returnedItems":[{"map":[["path",""#
                + container + #"/latest.png"]]}],"error":null,"openedURLs":[]}"#)
        // The containing app, from yet another directory (the test's), finds the image.
        #expect(FileManager.default.contents(atPath: container + "/latest.png") == Data("PNG bytes".utf8))
    }
}
