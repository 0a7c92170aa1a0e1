import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeStore
import Foundation
import Glibc
import Testing

/// A host killed outright (SIGKILL: no shutdown at all) loses nothing it acknowledged.
@Suite struct KillTests {
    @Test func killingTheHostMidWriteLosesNoAcknowledgedKey() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, ["--app-group", "group.kill"])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            let acknowledged = Acknowledged()
            let writers = 4

            let failures = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var n = 0
                        while true {
                            let key = "w\(writer)-\(n)", value = "value \(writer) \(n)"
                            do {
                                _ = try await prefs.invokeMethod(
                                    "setString",
                                    arguments: HostTesting.map([
                                        "key": .string(key), "value": .string(value),
                                    ]))
                            } catch {
                                return error
                            }
                            acknowledged.add(key, value)
                            n += 1
                        }
                    }
                }
                // Kill once the writers are well under way, while they are still writing.
                await acknowledged.waitForCount(40)
                host.send(signal: SIGKILL)
                var failures: [any Error] = []
                for try await failure in group { if let failure { failures.append(failure) } }
                return failures
            }

            let exit = await host.waitForExit()
            #expect(exit.bySignal && exit.status == SIGKILL)
            #expect(exit.stdoutLines == ["ready \(directory.socket)"])
            #expect(failures.count == writers)
            for failure in failures {
                let error = try #require(failure as? ChannelError, "\(failure)")
                #expect(error.code == .connectionClosed)
                #expect(error.channel == "shared_preference_app_group" && error.method == "setString")
            }

            // The file parses, as plain JSON and as the store reads it, and holds every
            // acknowledged key with its value.
            let file = directory.preferencesFile("group.kill")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
            let values = try #require((json as? [String: Any])?["values"] as? [String: Any])
            let stored = try await AppGroupStore(dataDirectory: directory.data).group("group.kill").allValues()
            let storedByKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.key, $0.value) })
            let expected = acknowledged.all
            #expect(expected.count >= 40)
            for (key, value) in expected {
                #expect(values[key] as? String == value, "acknowledged key \(key) is missing from the raw file")
                #expect(storedByKey[key] == .string(value), "acknowledged key \(key) is missing")
            }
            // Nothing else: at most the writes in flight at the kill, one per writer.
            #expect(storedByKey.count <= expected.count + writers)
        }
    }
}

extension KillTests {
    /// Group commit under a kill: many writes in flight on several connections, so each replace
    /// carries many of them. A write is acknowledged only after the replace that carries it is
    /// durable, so every acknowledged write survives the kill, whichever batch it was in.
    @Test func killingTheHostMidGroupCommitLosesNoAcknowledgedWrite() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, ["--app-group", "group.kill"])
            var connections: [SocketConnection] = []
            for _ in 0..<4 { connections.append(try await HostTesting.connect(directory)) }
            let acknowledged = Acknowledged()
            let writersPerConnection = 16

            let failures = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
                for (index, connection) in connections.enumerated() {
                    let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
                    for writer in 0..<writersPerConnection {
                        group.addTask {
                            var n = 0
                            while true {
                                let key = "c\(index)-w\(writer)-\(n)", value = "value \(index) \(writer) \(n)"
                                do {
                                    _ = try await prefs.invokeMethod(
                                        "setString",
                                        arguments: HostTesting.map([
                                            "key": .string(key), "value": .string(value),
                                        ]))
                                } catch {
                                    return error
                                }
                                acknowledged.add(key, value)
                                n += 1
                            }
                        }
                    }
                }
                // Kill once several batches have been acknowledged, with 64 writes in flight.
                await acknowledged.waitForCount(400)
                host.send(signal: SIGKILL)
                var failures: [any Error] = []
                for try await failure in group { if let failure { failures.append(failure) } }
                return failures
            }

            let exit = await host.waitForExit()
            #expect(exit.bySignal && exit.status == SIGKILL)
            #expect(failures.count == connections.count * writersPerConnection)
            let stored = try await AppGroupStore(dataDirectory: directory.data).group("group.kill").allValues()
            let storedByKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.key, $0.value) })
            let expected = acknowledged.all
            #expect(expected.count >= 400)
            let missing = expected.filter { storedByKey[$0.key] != .string($0.value) }.map(\.key)
            #expect(missing == [], "acknowledged writes missing after the kill")
            // Nothing else: at most the writes in flight at the kill.
            #expect(storedByKey.count <= expected.count + connections.count * writersPerConnection)
        }
    }
}

/// The keys whose writes were acknowledged, with their values.
private final class Acknowledged: Sendable {
    private let values = LockedValue<[String: String]>([:])
    private let waiter = LockedValue<(count: Int, continuation: CheckedContinuation<Void, Never>)?>(nil)

    func add(_ key: String, _ value: String) {
        let count = values.withLock { values in
            values[key] = value
            return values.count
        }
        let reached = waiter.withLock { waiter -> CheckedContinuation<Void, Never>? in
            guard let pending = waiter, count >= pending.count else { return nil }
            waiter = nil
            return pending.continuation
        }
        reached?.resume()
    }

    /// Returns once `count` keys are acknowledged (one waiter at a time).
    func waitForCount(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = waiter.withLock { waiter -> Bool in
                if values.withLock({ $0.count }) >= count { return true }
                waiter = (count, continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
    var count: Int { values.withLock { $0.count } }
    var all: [String: String] { values.withLock { $0 } }
}
