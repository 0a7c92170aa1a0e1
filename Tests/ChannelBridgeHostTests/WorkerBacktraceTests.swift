import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// Swift's backtracer in an isolated host's workers (Protocol/extension-host.md §1.8): off
/// (`SWIFT_BACKTRACE=enable=no`) unless the host's environment sets `SWIFT_BACKTRACE`, which the
/// workers then inherit as it is. Read from the environment of a live worker process as it was
/// started (`/proc/PID/environ`).
@Suite struct WorkerBacktraceTests {
    /// The host's environment: the test's, with `SWIFT_BACKTRACE` as given (removed for `nil`).
    static func environment(backtrace: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = backtrace
        return environment
    }

    /// The `SWIFT_BACKTRACE=` entries of the environment process `pid` was started with.
    static func backtraceEntries(of pid: Int) throws -> [String] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            .filter { $0.hasPrefix("SWIFT_BACKTRACE=") }
    }

    /// No `SWIFT_BACKTRACE` in the host's environment: its workers get `enable=no`, and a trap
    /// leaves the report line and the host's log on standard error, with no backtrace.
    @Test func workersStartWithTheBacktracerOffByDefault() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await SessionIsolationTests.start(directory, environment: Self.environment(backtrace: nil))
            let doomed = try await HostTesting.connect(directory)
            let pid = try await SessionIsolationTests.pid(doomed)
            #expect(try Self.backtraceEntries(of: pid) == ["SWIFT_BACKTRACE=enable=no"])
            _ = try? await HostTesting.methods(doomed, SessionIsolationTests.crash).invokeMethod(
                "abort", arguments: "x")
            await doomed.waitUntilClosed()
            #expect(doomed.messenger.closeError?.message.contains("died by SIGABRT") == true)

            let last = try await HostTesting.connect(directory)
            _ = try await HostTesting.methods(last).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
            let logged = exit.stderr.split(separator: "\n").map(String.init)
            #expect(
                logged.contains(
                    "isolation-test-host: fatal signal SIGABRT in the handler of method 'abort' on channel 'test/crash'"
                ),
                "\(exit.stderr)")
            // Swift's backtracer heads its report so; the runtime's own "Fatal error" line stays.
            #expect(!exit.stderr.contains("Program crashed"), "\(exit.stderr)")
            #expect(!exit.stderr.contains("Backtrace took"), "\(exit.stderr)")
        }
    }

    /// A `SWIFT_BACKTRACE` the user set reaches every worker as it is: their choice wins.
    @Test func aBacktraceSettingOfTheUsersReachesTheWorkers() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let setting = "enable=yes,symbolicate=off,threads=crashed"
            let host = try await SessionIsolationTests.start(
                directory, environment: Self.environment(backtrace: setting))
            let first = try await HostTesting.connect(directory)
            let second = try await HostTesting.connect(directory)
            for connection in [first, second] {
                let pid = try await SessionIsolationTests.pid(connection)
                #expect(try Self.backtraceEntries(of: pid) == ["SWIFT_BACKTRACE=\(setting)"])
            }
            _ = try await HostTesting.methods(first).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
        }
    }
}
