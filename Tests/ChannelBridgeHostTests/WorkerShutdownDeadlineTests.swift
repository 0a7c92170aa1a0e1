import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// The shutdown deadline with isolated sessions (Protocol/extension-host.md §1.8): the record
/// counts the calls a worker's session still owes, as the worker answers when asked at the
/// deadline, and the worker is then killed.
@Suite struct WorkerShutdownDeadlineTests {
    /// One session's worker holds a call (`hang` blocks its main thread for ever) past a 1 s
    /// shutdown timeout after another session's `exit`: the record says 1 call unfinished in 1
    /// open session, and the host exits. The timeout stretches as hang guards do: the session
    /// that called `exit` must have ended by then, which a sanitized build under load may not
    /// manage in 1 s. Ended by SIGTERM instead, the host runs its shutdown in a cancelled task,
    /// and still asks.
    @Test(arguments: ["exit", "SIGTERM"])
    func aCallHeldInAWorkerCountsAsUnfinished(ending: String) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let seconds = HangGuardScale.scaled(1)
            let host = try await SessionIsolationTests.start(directory, ["--echo", "--shutdown-timeout", "\(seconds)"])
            let held = try await HostTesting.connect(directory)
            // The handler says it is running through a FIFO: a call still queued for the main
            // thread when the shutdown begins is refused instead, and then nothing is unfinished.
            let fifo = directory.path + "/hang.fifo"
            try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: errno \(errno)")
            let calling = Task {
                try? await HostTesting.methods(held, SessionIsolationTests.crash).invokeMethod(
                    "hang", arguments: .string(fifo))
            }
            let mark = await onThread { () -> String in
                guard let handle = FileHandle(forReadingAtPath: fifo) else { return "cannot open the FIFO" }
                defer { try? handle.close() }
                return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            }
            #expect(mark == "hanging")

            let outcome: String
            if ending == "exit" {
                let ending = try await HostTesting.connect(directory)
                _ = try await HostTesting.methods(ending).invokeMethod("exit")
                outcome = #""outcome":"completed","returnedItems":null,"error":null"#
            } else {
                host.send(signal: SIGTERM)
                outcome =
                    #""outcome":"interrupted","returnedItems":null,"error":{"code":"SIGTERM","message":"the host was interrupted by SIGTERM","details":null}"#
            }
            let exit = await host.waitForExit()
            #expect(exit.status == (ending == "exit" ? 0 : 143) && !exit.bySignal, "\(exit.stderr)")
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{\#(outcome),"openedURLs":[],"shutdownDeadlinePassed":{"seconds":\#(seconds),"unfinishedCalls":1,"openSessions":1}}"#,
                ])
            #expect(
                exit.stderr.split(separator: "\n").map(String.init) == [
                    "extension-host: the shutdown deadline of \(seconds) s passed with 1 call unfinished in 1 open session; "
                        + "ending without them (no acknowledged write is lost)"
                ])
            await held.waitUntilClosed()
            _ = await calling.value
        }
    }
}
