import ChannelBridgePlatform

/// The host's live sessions.
final class SessionTable: Sendable {
    private struct State {
        var nextID = 0
        var sessions: [Int: HostSession] = [:]
    }

    private let state = LockedValue(State())

    func nextID() -> Int {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    func add(_ session: HostSession) {
        state.withLock { $0.sessions[session.id] = session }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.sessions.removeValue(forKey: id) }
    }

    var all: [HostSession] {
        state.withLock { $0.sessions.values.sorted { $0.id < $1.id } }
    }

    var count: Int {
        state.withLock { $0.sessions.count }
    }
}
