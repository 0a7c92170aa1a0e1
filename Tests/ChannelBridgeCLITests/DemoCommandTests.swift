import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge demo`, the first command a newcomer runs (README).
@Suite(.serialized) struct DemoCommandTests {
    @Test func demoRunsTheWholeFlowAndLeavesNothingBehind() async throws {
        // The shell prints its pid and becomes the demo, so the demo's own directories
        // (`cb-demo-PID-…`) are told from those of demos other tests run meanwhile.
        let outcome = try await ProcessRunner.runOnThread(
            "/bin/sh", ["-c", "echo $$; exec \"$0\" demo", ProcessRunner.path(of: "channelbridge")])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        var lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let pid = lines.removeFirst()
        #expect(Int32(pid) != nil, "the shell printed '\(pid)', not its pid")
        #expect(
            lines.contains(
                "ui ←   \"{\\\"text\\\":[\\\"Hello from the share sheet\\\",\\\"https://example.com/article?id=42\\\"],\\\"files\\\":[]}\""
            ))
        #expect(lines.contains(#"app ←  {"map":[["key","lastShared"],["value","Hello from the share sheet"]]}"#))
        #expect(lines.contains(#"app ←  {"map":[["key","ShareKey"],["value",""]]}"#))
        #expect(
            lines.contains(
                #"host   completion record: {"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[]}"#)
        )
        #expect(lines.contains("host   exited with status 0"))
        #expect(lines.last(where: { !$0.isEmpty }) == "demo complete")
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter {
            $0.hasPrefix("cb-demo-\(pid)-")
        }
        #expect(left.isEmpty, "the demo left \(left) in /tmp")
    }

    /// Typed as the README has it, `channelbridge` found through `PATH` from another directory:
    /// the demo starts its host and itself again from its own file, not from its bare name.
    @Test func demoFoundThroughPathRuns() async throws {
        try await TestDirectory.withPath { directory in
            // The rest of the environment kept: a sanitizer's build reads its options from it.
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = ProcessRunner.productsDirectory.path + ":/usr/bin:/bin"
            environment["HOME"] = directory
            let outcome = try await ProcessRunner.runOnThread(
                "/bin/sh", ["-c", "channelbridge demo"], environment: environment,
                currentDirectory: URL(fileURLWithPath: directory))
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.split(separator: "\n").last == "demo complete")
        }
    }

    @Test func demoTakesNoArguments() async throws {
        let outcome = try await ProcessRunner.runOnThread("channelbridge", ["demo", "extra"])
        #expect(outcome.status == 64)
    }
}

/// `channelbridge extension-host`: the host `channelbridge demo` starts when no `extension-host` is
/// beside it (a `channelbridge` copied on its own; SwiftPM builds both together).
@Suite struct CLIHostedExtensionHostTests {
    @Test func channelbridgeRunsTheSameHost() async throws {
        try await withHangGuard {
            try await TestDirectory.withPath { directory in
                let socket = directory + "/b.sock"
                let host = Process()
                host.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge"))
                host.arguments = [
                    "extension-host", "--socket", socket, "--data-dir", directory + "/data", "--text", "hi",
                ]
                let output = try CloseOnExecPipe()
                host.standardOutput = output.fileHandleForWriting
                try ProcessRunner.start(host)
                try output.fileHandleForWriting.close()
                let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
                #expect(ready == "ready \(socket)\n")
                let items = try await ProcessRunner.runOnThread("channelbridge", ["items", "--socket", socket])
                #expect(
                    items.stdout
                        == #"[{"map":[["attachments",[{"map":[["typeIdentifier","public.plain-text"],["text","hi"]]}]]]}]"#
                        + "\n")
                #expect(try await ProcessRunner.runOnThread("channelbridge", ["exit", "--socket", socket]).status == 0)
                let rest = await onThread {
                    let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    host.waitUntilExit()
                    return rest
                }
                #expect(host.terminationStatus == 0)
                #expect(rest == #"{"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[]}"# + "\n")
            }
        }
    }
}
