import ChannelBridgeCodec
import ChannelBridgePlatform

/// The changes one change stream's consumer has not taken yet.
///
/// Up to `exactLimit` waiting changes are kept as posted, one per write, in write order. Beyond
/// that the queue coalesces per key: each key waits at most once, in the order first changed,
/// carrying its latest change ("one change carrying the latest value", Protocol/store.md), until
/// the consumer has caught up. So memory is bounded by `exactLimit` plus the number of distinct
/// keys, never by the number of writes, however slowly the consumer reads.
///
/// The file store posts keys only (`exactLimit` 0: always coalesced) and reads each key's value
/// when the consumer takes it; the in-memory store posts whole changes and keeps them exact.
final class ChangeQueue<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var head = 0
        /// While coalescing: key (told apart by code units) → index in `items` of its waiting change.
        var waitingByKey: [CodeUnitString: Int] = [:]
        var coalescing = false
        var waiter: CheckedContinuation<Item?, Never>?
        var finished = false
        /// No more posts; finished once the waiting items are taken.
        var closed = false

        var count: Int { items.count - head }
    }

    private let state = LockedValue(State())
    private let key: @Sendable (Item) -> String
    private let exactLimit: Int

    init(exactLimit: Int, key: @escaping @Sendable (Item) -> String) {
        self.exactLimit = exactLimit
        self.key = key
    }

    /// A consumer that `enqueue` found waiting, with the change it is to get: resumed by whoever
    /// called `enqueue`, once that caller holds no lock.
    struct Wakeup: Sendable {
        fileprivate let continuation: CheckedContinuation<Item?, Never>
        fileprivate let item: Item

        func resume() {
            continuation.resume(returning: item)
        }
    }

    /// Adds `items` in order and returns the waiting consumer to wake, if any. Takes only this
    /// queue's own lock and calls nothing, so a caller may hold its own lock around it to order
    /// the posts of several producers, and wakes the consumer after releasing that lock.
    func enqueue(_ items: some Sequence<Item>) -> Wakeup? {
        state.withLock { state -> Wakeup? in
            guard !state.finished, !state.closed else { return nil }
            for item in items { add(item, to: &state) }
            guard let waiter = state.waiter, let item = pop(&state) else { return nil }
            state.waiter = nil
            return Wakeup(continuation: waiter, item: item)
        }
    }

    /// Adds `items` in order, waking a waiting consumer. Ignored once finished or closed. Call it
    /// holding no lock (it may resume a continuation); under a lock, use `enqueue`.
    func post(_ items: some Sequence<Item>) {
        enqueue(items)?.resume()
    }

    /// The next change; `nil` once finished (or when the waiting task is cancelled, which
    /// finishes the queue). One consumer at a time.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let ready = state.withLock { state -> Item?? in
                    if let item = pop(&state) { return .some(item) }
                    if state.finished || state.closed {
                        state.finished = true
                        return .some(nil)
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Takes no more changes; the consumer still gets those waiting, then `nil` (the stream's
    /// source ended, e.g. the group directory was deleted).
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.closed = true
            guard state.count == 0 else { return nil }
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Ends the queue at once: waiting changes are dropped, a waiting consumer gets `nil`, later
    /// posts are ignored (the consumer stopped).
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.finished = true
            state.items = []
            state.head = 0
            state.waitingByKey = [:]
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    private func add(_ item: Item, to state: inout State) {
        if !state.coalescing && state.count >= exactLimit { startCoalescing(&state) }
        guard state.coalescing else {
            state.items.append(item)
            return
        }
        let itemKey = CodeUnitString(key(item))
        if let index = state.waitingByKey[itemKey] {
            state.items[index] = item
        } else {
            state.waitingByKey[itemKey] = state.items.count
            state.items.append(item)
        }
    }

    /// Collapses the waiting changes to one per key: first place, latest change.
    private func startCoalescing(_ state: inout State) {
        var collapsed: [Item] = []
        var byKey: [CodeUnitString: Int] = [:]
        for item in state.items[state.head...] {
            let itemKey = CodeUnitString(key(item))
            if let index = byKey[itemKey] {
                collapsed[index] = item
            } else {
                byKey[itemKey] = collapsed.count
                collapsed.append(item)
            }
        }
        state.items = collapsed
        state.head = 0
        state.waitingByKey = byKey
        state.coalescing = true
    }

    private func pop(_ state: inout State) -> Item? {
        guard state.head < state.items.count else { return nil }
        let item = state.items[state.head]
        state.head += 1
        if state.coalescing { state.waitingByKey[CodeUnitString(key(item))] = nil }
        if state.head == state.items.count {
            // Caught up: exact again.
            state.items.removeAll(keepingCapacity: state.items.count <= 1_024)
            state.head = 0
            state.coalescing = exactLimit == 0
            state.waitingByKey.removeAll(keepingCapacity: false)
        } else if state.head >= 1_024 && state.head * 2 >= state.items.count {
            state.items.removeFirst(state.head)
            if state.coalescing {
                let shift = state.head
                for (itemKey, index) in state.waitingByKey { state.waitingByKey[itemKey] = index - shift }
            }
            state.head = 0
        }
        return item
    }
}

extension ChangeQueue where Item == String {
    /// Keys only, always coalesced: for streams that read each key's value when it is taken.
    convenience init() {
        self.init(exactLimit: 0) { $0 }
    }
}

extension ChangeQueue where Item == StoreChange {
    /// Whole changes, exact while at most `exactLimit` wait.
    convenience init(exactLimit: Int) {
        self.init(exactLimit: exactLimit) { $0.key }
    }
}
