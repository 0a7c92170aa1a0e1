import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge-rtt-driver`, the program `Scripts/count-instructions` runs under callgrind, run
/// here without valgrind at a tiny size: its server serves the rtt scenario's `echo` until its
/// stdin ends, its client makes exactly the calls it is asked for and checks every reply, and
/// both end with status 0, so the script's counts come from a pair that did the work.
@Suite struct RttDriverTests {
    /// A `channelbridge-rtt-driver serve` on a fresh socket, serving until `stop()`.
    struct Server {
        let directory: TestDirectory
        let process: HostProcess
        let input: FileHandle
        var socket: String { directory.path + "/rtt.sock" }

        init() async throws {
            directory = try TestDirectory()
            let pipe = try CloseOnExecPipe()
            let socket = directory.path + "/rtt.sock"
            process = try HostProcess(
                ["serve", "--socket", socket], product: "channelbridge-rtt-driver",
                input: pipe.fileHandleForReading)
            try pipe.fileHandleForReading.close()
            input = pipe.fileHandleForWriting
            let ready = try await withHangGuard(seconds: 30) { [process] in try await process.readyLine() }
            try #require(ready == "ready \(socket)")
        }

        /// Ends the server's stdin and returns how it exited.
        func stop() async throws -> HostProcess.Exit {
            try input.close()
            defer { directory.remove() }
            return try await withHangGuard(seconds: 30) { await process.waitForExit() }
        }
    }

    @Test(arguments: [1, 200])
    func clientMakesItsCallsAndBothExitZero(count: Int) async throws {
        let server = try await Server()
        let client = try await withHangGuard(seconds: 60) {
            try await ProcessRunner.runOnThread(
                "channelbridge-rtt-driver",
                ["call", "--socket", server.socket, "--count", String(count)])
        }
        #expect(client.status == 0, "stderr: \(client.stderr)")
        #expect(client.stdout == "" && client.stderr == "")
        // A second client on the same server: the server keeps serving after a connection ends.
        let again = try await withHangGuard(seconds: 60) {
            try await ProcessRunner.runOnThread(
                "channelbridge-rtt-driver", ["call", "--socket", server.socket, "--count", "3"])
        }
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let exit = try await server.stop()
        #expect(exit.status == 0 && !exit.bySignal, "stderr: \(exit.stderr)")
        #expect(exit.stdoutLines == ["ready \(server.socket)"])
        #expect(exit.stderr == "")
    }

    /// `serve-host --keys K` writes a group of K keys before the host starts, and `call-host
    /// --keys K` reads them as `bench prefs` does, checking every value it is answered.
    @Test func hostClientReadsEveryKeyOfAGroupOfKeys() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socket = directory.path + "/h.sock"
        let pipe = try CloseOnExecPipe()
        let process = try HostProcess(
            ["serve-host", "--socket", socket, "--data-dir", directory.path + "/data", "--keys", "50"],
            product: "channelbridge-rtt-driver", input: pipe.fileHandleForReading)
        try pipe.fileHandleForReading.close()
        let ready = try await withHangGuard(seconds: 30) { try await process.readyLine() }
        try #require(ready == "ready \(socket)")
        let client = try await withHangGuard(seconds: 60) {
            try await ProcessRunner.runOnThread(
                "channelbridge-rtt-driver", ["call-host", "--socket", socket, "--count", "120", "--keys", "50"])
        }
        #expect(client.status == 0 && client.stderr == "", "stderr: \(client.stderr)")
        // A client that expects a larger group asks for keys this one lacks, and says which.
        let larger = try await withHangGuard(seconds: 60) {
            try await ProcessRunner.runOnThread(
                "channelbridge-rtt-driver", ["call-host", "--socket", socket, "--count", "3", "--keys", "100000"])
        }
        #expect(larger.status == 1, "stderr: \(larger.stderr)")
        #expect(larger.stderr.contains("call 2: getString k7919 answered null"), "\(larger.stderr)")
        try pipe.fileHandleForWriting.close()
        let exit = try await withHangGuard(seconds: 30) { await process.waitForExit() }
        #expect(exit.status == 0 && !exit.bySignal, "stderr: \(exit.stderr)")
    }

    @Test func clientWithoutAServerFailsWithStatusOne() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge-rtt-driver", ["call", "--socket", directory.path + "/none.sock", "--count", "1"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.hasPrefix("channelbridge-rtt-driver call: "), "\(outcome.stderr)")
    }

    @Test(arguments: [
        [], ["call", "--socket", "/tmp/x.sock"], ["call", "--socket", "/tmp/x.sock", "--count", "-1"],
        ["serve", "--socket", "/tmp/x.sock", "--count", "1"], ["serve", "--frobnicate", "1"],
        ["call", "--socket", "/tmp/x.sock", "--count", "1", "--keys", "5"],
        ["call-host", "--socket", "/tmp/x.sock", "--count", "1", "--keys", "0"],
    ])
    func usageErrorsExit64(arguments: [String]) async throws {
        let outcome = try await ProcessRunner.runOnThread("channelbridge-rtt-driver", arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("usage: channelbridge-rtt-driver serve --socket PATH"), "\(outcome.stderr)")
    }
}
