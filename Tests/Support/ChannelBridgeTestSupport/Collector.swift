import ChannelBridgePlatform

/// Collects values that arrive from elsewhere (handlers on other tasks, a child's output lines, a
/// change stream), in the order they arrive. A test reads them afterwards with `all`, or waits until
/// they satisfy a condition, under a generous hang guard rather than a timing assertion.
///
/// ```swift
/// let seen = Collector<String>()
/// messenger.setMessageHandler(onChannel: "log") { seen.append(String(decoding: $0 ?? [], as: UTF8.self)); return nil }
/// // …
/// let firstTwo = try await seen.first(2)
/// ```
public final class Collector<Element: Sendable>: Sendable {
    private struct Waiter {
        let isSatisfied: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<[Element], any Error>
    }

    private struct State {
        var items: [Element] = []
        var finished = false
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = LockedValue(State())
    /// What is collected, for the messages of failed waits.
    public let name: String

    public init(name: String = "collected values") {
        self.name = name
    }

    /// Everything collected so far, in order.
    public var all: [Element] { state.withLock { $0.items } }
    public var count: Int { state.withLock { $0.items.count } }
    public var isFinished: Bool { state.withLock { $0.finished } }

    public func append(_ item: Element) {
        let ready = state.withLock { state -> [(CheckedContinuation<[Element], any Error>, [Element])] in
            state.items.append(item)
            return Self.takeSatisfied(&state)
        }
        for (continuation, items) in ready { continuation.resume(returning: items) }
    }

    /// No more elements will come; waiters that are not yet satisfied fail now.
    public func finish() {
        let (waiters, items) = state.withLock { state -> ([Waiter], [Element]) in
            state.finished = true
            defer { state.waiters = [:] }
            return (Array(state.waiters.values), state.items)
        }
        for waiter in waiters {
            waiter.continuation.resume(
                throwing: HangGuardExpired(
                    description: "\(name) ended before the expected items arrived; got \(items)"))
        }
    }

    /// Waits until `isSatisfied(all)` holds and returns the items at that moment.
    @discardableResult
    public func wait(
        for what: String, hangGuard: Duration = .seconds(HangGuardScale.defaultSeconds),
        until isSatisfied: @escaping @Sendable ([Element]) -> Bool
    ) async throws -> [Element] {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let guardTask = Task {
            try await Task.sleep(for: HangGuardScale.scaled(hangGuard))
            self.expire(id, what: what)
        }
        defer { guardTask.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = state.withLock { state -> Result<[Element], HangGuardExpired>? in
                if isSatisfied(state.items) { return .success(state.items) }
                if state.finished {
                    return .failure(HangGuardExpired(description: "\(name) ended before \(what); got \(state.items)"))
                }
                state.waiters[id] = Waiter(isSatisfied: isSatisfied, continuation: continuation)
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Waits until no more elements will come and returns all of them.
    public func waitForEnd(hangGuard: Duration = .seconds(HangGuardScale.defaultSeconds)) async throws -> [Element] {
        do {
            _ = try await wait(for: "the end", hangGuard: hangGuard) { _ in false }
        } catch let error as HangGuardExpired where isFinished {
            _ = error
        }
        return all
    }

    /// Waits until at least `count` items have arrived and returns the first `count`.
    @discardableResult
    public func first(
        _ count: Int, hangGuard: Duration = .seconds(HangGuardScale.defaultSeconds)
    ) async throws -> [Element] {
        Array(try await wait(for: "\(count) items", hangGuard: hangGuard) { $0.count >= count }.prefix(count))
    }

    private func expire(_ id: UInt64, what: String) {
        let expired = state.withLock { state in state.waiters.removeValue(forKey: id).map { ($0, state.items) } }
        if let (waiter, items) = expired {
            waiter.continuation.resume(
                throwing: HangGuardExpired(
                    description: "hang guard expired waiting for \(what) from \(name); got \(items)"))
        }
    }

    private static func takeSatisfied(_ state: inout State) -> [(CheckedContinuation<[Element], any Error>, [Element])]
    {
        var ready: [(CheckedContinuation<[Element], any Error>, [Element])] = []
        for (id, waiter) in state.waiters where waiter.isSatisfied(state.items) {
            state.waiters[id] = nil
            ready.append((waiter.continuation, state.items))
        }
        return ready
    }
}
