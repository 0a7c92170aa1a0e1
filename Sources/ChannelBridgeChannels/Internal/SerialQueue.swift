import ChannelBridgePlatform

/// Runs async operations one after another in submission order, each to completion, even when they
/// suspend. (An actor would interleave them at every `await`.)
final class SerialQueue: Sendable {
    /// Waits for the most recently submitted operation.
    private let tail = LockedValue<(@Sendable () async -> Void)?>(nil)

    /// Submits `operation` behind everything submitted before and waits for its result. The
    /// operation runs to completion even if the caller is cancelled, so state it changes stays
    /// consistent.
    func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let task = enqueue(operation)
        return await task.value
    }

    /// Submits `operation` without waiting for it.
    func submit(_ operation: @escaping @Sendable () async -> Void) {
        _ = enqueue(operation)
    }

    private func enqueue<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> Task<T, Never> {
        tail.withLock { tail in
            let previous = tail
            let task = Task<T, Never> {
                await previous?()
                return await operation()
            }
            tail = { _ = await task.value }
            return task
        }
    }
}
