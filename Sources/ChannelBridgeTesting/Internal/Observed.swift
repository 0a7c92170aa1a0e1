import ChannelBridgePlatform

/// A value behind a lock that tasks can wait on: every `update` wakes the waiters whose condition
/// now holds. Conditions run under the lock, so they must only read the value.
final class Observed<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct Box {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0
    }

    private let box: LockedValue<Box>

    init(_ value: Value) {
        box = LockedValue(Box(value: value))
    }

    func read<T: Sendable>(_ body: (Value) -> T) -> T {
        box.withLock { body($0.value) }
    }

    /// Changes the value, then resumes (outside the lock) the waiters it satisfies.
    @discardableResult
    func update<T: Sendable>(_ body: (inout Value) -> T) -> T {
        let (result, woken) = box.withLock { box -> (T, [CheckedContinuation<Void, Never>]) in
            let result = body(&box.value)
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in box.waiters where waiter.condition(box.value) {
                woken.append(waiter.continuation)
                box.waiters[id] = nil
            }
            return (result, woken)
        }
        for continuation in woken { continuation.resume() }
        return result
    }

    /// Returns once `condition` holds, or as soon as the calling task is cancelled; callers that
    /// care tell the two apart with `Task.isCancelled`.
    func wait(until condition: @escaping @Sendable (Value) -> Bool) async {
        let id = box.withLock { box in
            defer { box.nextWaiterID += 1 }
            return box.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock that `update` and the cancellation handler take, so the
                // waiter is either resumed here or found by one of them, never lost.
                let ready = box.withLock { box -> Bool in
                    if condition(box.value) || Task.isCancelled { return true }
                    box.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            box.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
