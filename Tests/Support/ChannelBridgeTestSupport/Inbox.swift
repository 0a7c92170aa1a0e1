import ChannelBridgePlatform

/// Values pushed from handlers, taken in order by one reader that waits for the next one.
///
/// ```swift
/// let calls = Inbox<MethodCall>()
/// channel.setMethodCallHandler { call in calls.put(call); return nil }
/// #expect(await calls.next().method == "hello")
/// ```
public final class Inbox<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = LockedValue(State())

    public init() {}

    public func put(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.values.append(value)
            return nil
        }
        waiter?.resume(returning: value)
    }

    /// The next value; one reader at a time, guarded against hangs by the caller.
    public func next() async -> Value {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state -> Value? in
                if !state.values.isEmpty { return state.values.removeFirst() }
                state.waiter = continuation
                return nil
            }
            if let value { continuation.resume(returning: value) }
        }
    }

    /// Values received and not yet taken.
    public var waiting: [Value] {
        state.withLock { $0.values }
    }
}
