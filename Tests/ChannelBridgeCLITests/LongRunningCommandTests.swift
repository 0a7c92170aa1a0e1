import ChannelBridgeTestSupport
import Foundation
import Testing

/// Commands that run until stopped: `channelbridge listen` interrupted with Ctrl-C, and
/// `channelbridge prefs watch` through a host.
@Suite struct LongRunningCommandTests {
    /// A `channelbridge …` child whose stdout lines are collected as they come.
    final class RunningBridge: Sendable {
        let process: Process
        let lines = Collector<String>(name: "channelbridge stdout")

        init(_ arguments: [String]) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge"))
            process.arguments = arguments
            let output = try CloseOnExecPipe()
            process.standardOutput = output.fileHandleForWriting
            process.standardError = FileHandle.nullDevice
            try ProcessRunner.start(process)
            try output.fileHandleForWriting.close()
            let lines = lines
            let reading = output.fileHandleForReading
            Thread {
                var pending = Data()
                while true {
                    let chunk = reading.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                lines.finish()
            }.start()
        }

        func exitStatus() async -> Int32 {
            let process = process
            return await withCheckedContinuation { continuation in
                Thread {
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                }.start()
            }
        }
    }

    @Test func ctrlCCancelsTheStreamAndExits130() async throws {
        try await withHangGuard {
            try await TestDirectory.withPath { directory in
                let socket = directory + "/p.sock"
                let peer = try ListeningTestPeer(socket: socket)
                defer { peer.stop() }
                // An endless stream: a tick every 10 ms until cancelled.
                let listen = try RunningBridge([
                    "listen", "peer/events", #"{"count": 0, "tick": 10}"#, "--socket", socket,
                ])
                let first = try await listen.lines.first(2)
                #expect(first == [#"{"int32":0}"#, #"{"int32":1}"#])
                kill(listen.process.processIdentifier, SIGINT)
                #expect(await listen.exitStatus() == 130)
            }
        }
    }

    @Test func prefsWatchThroughTheHostPrintsEachChange() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            let watch = try RunningBridge(["prefs", "watch", "k", "--app-group", "group.a", "--socket", live.socket])
            defer { kill(watch.process.processIdentifier, SIGKILL) }
            // The watch subscribes as it starts: write until it has printed a change.
            var value = 0
            while watch.lines.count == 0 {
                value += 1
                _ = try await ProcessRunner.runOnThread(
                    "channelbridge", ["prefs", "set", "other", "x", "--socket", live.socket])
                _ = try await ProcessRunner.runOnThread(
                    "channelbridge",
                    [
                        "prefs", "set", "k", "\(value)", "--type", "int",
                        "--socket", live.socket,
                    ])
                _ = try? await watch.lines.wait(for: "a change", hangGuard: .milliseconds(300)) { !$0.isEmpty }
            }
            let line = try #require(watch.lines.all.first)
            #expect(line.hasPrefix(#"{"map":[["key","k"],["value",{"int32":"#))
        }
    }
}
