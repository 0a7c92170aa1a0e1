import ChannelBridgeChannels
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc

/// The host of a history run: started, SIGKILLed and started again on the same socket and data
/// directory. Each start is a new generation; a client whose connection ended waits for a
/// generation newer than the one it was connected to (an event, not a poll).
final class HostSupervisor: Sendable {
    private struct State {
        var host: HostProcess?
        var generation = 0
        var waiters: [(after: Int, continuation: CheckedContinuation<Int, Never>)] = []
        var kills = 0
        /// No host will be started again: a client that would wait for one gets `nil`.
        var finished = false
    }

    let directory: TestDirectory
    let arguments: [String]
    /// The host executable: the package's `extension-host`, or `CHANNELBRIDGE_HISTORY_HOST` (an
    /// absolute path, e.g. a release build's) when set.
    let product: String
    private let state = LockedValue(State())

    init(_ directory: TestDirectory, arguments: [String]) {
        self.directory = directory
        self.arguments = arguments
        self.product = ProcessInfo.processInfo.environment["CHANNELBRIDGE_HISTORY_HOST"] ?? "extension-host"
    }

    var kills: Int { state.withLock { $0.kills } }

    func start() async throws {
        let host = try await HostTesting.start(directory, arguments, product: product)
        let ready = state.withLock { state -> [CheckedContinuation<Int, Never>] in
            state.host = host
            state.generation += 1
            let generation = state.generation
            let ready = state.waiters.filter { $0.after < generation }.map(\.continuation)
            state.waiters.removeAll { $0.after < generation }
            return ready
        }
        let generation = state.withLock { $0.generation }
        for continuation in ready { continuation.resume(returning: generation) }
    }

    /// SIGKILLs the host and starts the next one.
    func killAndRestart() async throws {
        guard
            let host = state.withLock({ state -> HostProcess? in
                state.kills += 1
                return state.host
            })
        else { return }
        host.send(signal: SIGKILL)
        _ = await host.waitForExit()
        try await start()
    }

    /// Ends the host with SIGTERM.
    func stop() async {
        guard let host = state.withLock({ $0.host }) else { return }
        host.send(signal: SIGTERM)
        _ = await host.waitForExit()
    }

    /// No host will be started again: clients waiting for one, and any that would wait later,
    /// get `nil` from `connect`.
    func finish() {
        let waiting = state.withLock { state -> [CheckedContinuation<Int, Never>] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: -1) }
    }

    /// A connection to a host of a generation after `generation`, waiting for one to be started;
    /// `nil` once `finish` was called and none is left to wait for.
    func connect(after generation: Int) async -> (SocketConnection, Int)? {
        var after = generation
        while true {
            let current = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                let now = state.withLock { state -> Int? in
                    if state.generation > after { return state.generation }
                    if state.finished { return -1 }
                    state.waiters.append((after, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
            if current < 0 { return nil }
            do {
                let connection = try await SocketConnection.connect(
                    to: directory.socket, options: HostTesting.clientOptions)
                _ = try await connection.messenger.waitForPeerHello()
                return (connection, current)
            } catch {
                // That host died between its start and this connect: wait for the next one.
                after = current
            }
        }
    }
}
