import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeStore
import Foundation
import Glibc
import Testing

/// The shutdown deadline (extension-host.md §1.3): a store write that cannot finish, because this
/// test holds the group's `.lock`, does not keep the host from ending once the request has ended.
@Suite struct ShutdownDeadlineTests {
    /// How the request ends while the write is stuck.
    enum Ending: String, CaseIterable, Sendable {
        case sigterm
        case exitCall
    }

    @Test(arguments: Ending.allCases)
    func aStuckStoreWriteDoesNotHoldTheHostPastTheShutdownTimeout(ending: Ending) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(
                directory, ["--app-group", "group.stuck", "--shutdown-timeout", "1"])
            let stuck = try await StuckWrite(host: host, directory: directory)
            defer { stuck.lock.release() }

            switch ending {
            case .sigterm:
                host.send(signal: SIGTERM)
            case .exitCall:
                #expect(try await HostTesting.methods(stuck.connection).invokeMethod("exit") == .null)
            }
            // The bound is the 1 s shutdown timeout; the guard allows for a loaded machine.
            let (exit, callError) = try await stuck.waitForTheEnd(guardSeconds: 10)

            let (status, outcome) =
                switch ending {
                case .sigterm:
                    (
                        Int32(143),
                        #""outcome":"interrupted","returnedItems":null,"error":{"code":"SIGTERM","message":"the host was interrupted by SIGTERM","details":null}"#
                    )
                case .exitCall: (Int32(0), #""outcome":"completed","returnedItems":null,"error":null"#)
                }
            #expect(exit.status == status && !exit.bySignal, "\(exit.stderr)")
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{\#(outcome),"openedURLs":[],"shutdownDeadlinePassed":{"seconds":1,"unfinishedCalls":1,"openSessions":1}}"#,
                ])
            #expect(
                exit.stderr.contains(
                    "extension-host: the shutdown deadline of 1 s passed with 1 call unfinished in 1 open session; "
                        + "ending without them (no acknowledged write is lost)"), "\(exit.stderr)")
            // The stuck call ended with an error instead of hanging, and never saw success.
            let error = try #require(callError as? ChannelError, "\(String(describing: callError))")
            #expect(error.code == .connectionClosed)
            #expect(error.channel == HostTesting.prefsChannel && error.method == "setString")
            #expect(!FileManager.default.fileExists(atPath: directory.socket))

            // The acknowledged write is in the store; the unacknowledged one never took the lock.
            stuck.lock.release()
            let stored = try await AppGroupStore(dataDirectory: directory.data).group("group.stuck").allValues()
            #expect(stored.map(\.key) == ["acknowledged"])
        }
    }

    /// With the write stuck and a shutdown timeout far off, a second SIGTERM ends the host at once,
    /// with SIGTERM's status and without a record.
    @Test func aSecondSignalDuringTheGracePeriodEndsTheHostAtOnce() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(
                directory, ["--app-group", "group.stuck", "--shutdown-timeout", "3600"])
            let stuck = try await StuckWrite(host: host, directory: directory)
            defer { stuck.lock.release() }
            // A session that owes nothing is closed as soon as the shutdown sends its GOODBYE.
            let idle = ClosedCollector(try await HostTesting.connect(directory))

            host.send(signal: SIGTERM)
            #expect(await idle.error().message.contains("shuttingDown"))
            host.send(signal: SIGTERM)
            // Far below the 3600 s timeout: only the second signal can end the host in time.
            let (exit, callError) = try await stuck.waitForTheEnd(guardSeconds: 10)
            #expect(exit.status == 143 && !exit.bySignal, "\(exit.stderr)")
            #expect(exit.stdoutLines == ["ready \(directory.socket)"])
            #expect((callError as? ChannelError)?.code == .connectionClosed, "\(String(describing: callError))")
        }
    }

}

/// A host session with one acknowledged write and one `setString` stuck in the store's commit
/// (the test holds the group's lock, and the host's committer has opened the lock file).
private struct StuckWrite {
    let host: HostProcess
    let connection: SocketConnection
    let lock: HeldGroupLock
    let call: Task<(any Error)?, Never>

    init(host: HostProcess, directory: TestDirectory) async throws {
        self.host = host
        connection = try await HostTesting.connect(directory)
        let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
        _ = try await prefs.invokeMethod(
            "setString",
            arguments: HostTesting.map([
                "key": "acknowledged", "value": "durable",
            ]))
        lock = try HeldGroupLock(groupDirectory: directory.group("group.stuck"))
        call = Task {
            do {
                _ = try await prefs.invokeMethod(
                    "setString",
                    arguments: HostTesting.map([
                        "key": "stuck", "value": "never acknowledged",
                    ]))
                return nil
            } catch {
                return error
            }
        }
        await lock.waitForOpenByAnother()
    }

    /// The host's exit and the stuck call's error (`nil` if it succeeded), within `guardSeconds`;
    /// past that the guard fails naming what hung, and the host is killed.
    func waitForTheEnd(guardSeconds: Int) async throws -> (HostProcess.Exit, (any Error)?) {
        let (host, call) = (host, call)
        do {
            return try await withHangGuard(seconds: guardSeconds, function: "the host's exit and the stuck call's end")
            {
                let exit = await host.waitForExit()
                return (exit, await call.value)
            }
        } catch {
            host.send(signal: SIGKILL)
            throw error
        }
    }
}
