import ChannelBridgeMessenger
import ChannelBridgeSocket

/// Waits for the peer's HELLO on a connection until a deadline.
enum HelloDeadline {
    /// Returns once `connection`'s peer has sent HELLO; throws what `waitForPeerHello` throws, or
    /// `SocketError.timedOut` (naming `total`, the whole connect's budget) when `remaining` passes
    /// first. The losing wait is cancelled; `waitForPeerHello` ends at once when cancelled.
    static func wait(for connection: SocketConnection, remaining: Duration, total: Duration) async throws {
        let path = connection.path
        guard remaining > .zero else { throw SocketError.timedOut(path: path, after: total) }
        let messenger = connection.messenger
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try await messenger.waitForPeerHello()
                return true
            }
            group.addTask {
                try await Task.sleep(for: remaining)
                return false
            }
            defer { group.cancelAll() }
            // The first child to finish decides; `defer` cancels the other and the group awaits it.
            guard try await group.next() == true else { throw SocketError.timedOut(path: path, after: total) }
        }
    }
}
