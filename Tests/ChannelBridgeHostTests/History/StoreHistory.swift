import ChannelBridgePlatform
import Synchronization

/// A recorded history of store operations made through hosts by many concurrent sessions: for
/// each operation, who made it (worker and session), where it stands in its worker's program
/// order, when it was invoked and completed (one global counter, so real-time order is known),
/// and what came of it.
///
/// Each worker writes only keys of its own (`w3-k5`) and appends only items of its own to the
/// shared list (`w3:17`, unique), so the model is a set of single-writer registers plus one list
/// that every worker appends to and takes from.
final class StoreHistory: Sendable {
    enum Kind: Sendable, Equatable {
        /// A set of `key` to a unique string, or a remove (`nil`).
        case write(key: String, value: String?)
        case read(key: String)
        case append(item: String)
        case take(requestID: String)
    }

    enum Outcome: Sendable, Equatable {
        case pending
        /// Acknowledged; for a read or a take, the value answered (a take's items, in order).
        case ok(read: String?, items: [String])
        /// The connection ended before the reply: it may or may not have taken effect.
        case unknown
        /// A definite error answered by the host: it took no effect.
        case failed(String)
    }

    struct Operation: Sendable {
        var worker: Int
        /// Counts the worker's connections: a new one after each that ended.
        var session: Int
        /// The worker's program order.
        var position: Int
        var kind: Kind
        var invoked: Int
        var completed = Int.max
        var outcome = Outcome.pending
    }

    private let clock = Atomic<Int>(0)
    private let operations = LockedValue<[Operation]>([])

    /// Records an invocation; returns its index for `complete`.
    func invoke(worker: Int, session: Int, position: Int, _ kind: Kind) -> Int {
        let time = clock.add(1, ordering: .sequentiallyConsistent).newValue
        return operations.withLock { operations in
            operations.append(
                Operation(worker: worker, session: session, position: position, kind: kind, invoked: time))
            return operations.count - 1
        }
    }

    func complete(_ index: Int, _ outcome: Outcome) {
        let time = clock.add(1, ordering: .sequentiallyConsistent).newValue
        operations.withLock { operations in
            operations[index].completed = time
            operations[index].outcome = outcome
        }
    }

    var recorded: [Operation] { operations.withLock { $0 } }

    private let phases = LockedValue<[String: String]>([:])

    /// What each task of the run is doing now, for the report of a run that hangs.
    func phase(_ task: String, _ phase: String) {
        phases.withLock { $0[task] = phase }
    }

    private let notes = LockedValue<[String]>([])

    /// Something the run saw that the report should show.
    func note(_ text: String) {
        notes.withLock { $0.append(text) }
    }

    var recordedNotes: [String] { notes.withLock { $0 } }

    var currentPhases: [String] { phases.withLock { $0.map { "\($0.key): \($0.value)" }.sorted() } }
}
