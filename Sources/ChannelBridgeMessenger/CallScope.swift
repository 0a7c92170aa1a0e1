import ChannelBridgePlatform

/// A stretch of one task's calls on one connection that share a single cancellation handler:
/// `MessengerConnection.withCallScope`.
///
/// A request normally installs a cancellation handler for its own wait and removes it when the
/// reply comes: two updates of the task's status records under the runtime's lock, plus executor
/// hops around them, a large share of a small call's cost (`Scripts/count-instructions`).
/// Inside a scope the handler is installed once, and cancelling the task withdraws every call
/// of the scope that is still waiting (each with a CANCEL frame), as each call's own handler
/// would have.
///
/// Only the task that opened the scope uses it: a call finds its scope by comparing the current
/// task with the scope's. Child tasks are other tasks, so their calls install their own handler,
/// as outside a scope.
final class CallScope: Sendable {
    /// The address of the task that opened the scope, only ever compared. The scope is
    /// unregistered from its connection before that task can end, so no later task at the same
    /// address is compared with it.
    let task: UInt

    init() {
        task = Self.currentTaskAddress()
    }

    /// The current task's address (0 outside a task): `RuntimeShim.currentTaskAddress`, which
    /// reads the runtime's thread-local directly rather than through `withUnsafeCurrentTask`'s
    /// unspecialized generic call.
    static func currentTaskAddress() -> UInt {
        RuntimeShim.currentTaskAddress
    }
}
