import ChannelBridgePlatform
import Foundation

/// What the soak's workers did: operations done per kind, errors, and every write in flight, from
/// which stalls are found. Shared by every worker task; everything is under one lock that runs no
/// code but its own bookkeeping.
final class SoakLedger: Sendable {
    /// A write unacknowledged for longer than this is a stall, by default.
    static let defaultStallLimit: Duration = .seconds(2)
    /// How many error and stall descriptions are kept for printing (all are counted).
    static let keptDescriptions = 20

    private struct InFlight {
        var operation: String
        var since: ContinuousClock.Instant
        var stalled = false
    }

    private struct State {
        var operations: [String: Int] = [:]
        var errorCount = 0
        var errors: [String] = []
        var stallCount = 0
        var stalls: [String] = []
        var inFlight: [Int: InFlight] = [:]
        var nextToken = 0
        var longestAcknowledgement: Duration = .zero
    }

    let start = ContinuousClock.now
    /// A write unacknowledged for longer than this is a stall.
    let stallLimit: Duration
    private let state = LockedValue(State())

    init(stallLimit: Duration = SoakLedger.defaultStallLimit) {
        self.stallLimit = stallLimit
    }

    /// Seconds since the soak started, for descriptions.
    func elapsed(at instant: ContinuousClock.Instant = .now) -> String {
        String(format: "%.1f s", (instant - start).milliseconds / 1000)
    }

    /// Counts `count` operations of `kind` done.
    func count(_ kind: String, _ count: Int = 1) {
        state.withLock { $0.operations[kind, default: 0] += count }
    }

    /// Records an error (`what` failed with `error`).
    func error(_ what: String, _ error: any Error) {
        let description = "\(elapsed()): \(what): \(error)"
        state.withLock { state in
            state.errorCount += 1
            if state.errors.count < Self.keptDescriptions { state.errors.append(description) }
        }
    }

    /// Runs `body`, a write (`operation`) that is counted in flight until it returns; counts it done
    /// when it returns, records an error when it throws. Returns whether it was acknowledged.
    @discardableResult
    func write(_ operation: String, _ body: () async throws -> Void) async -> Bool {
        let token = state.withLock { state in
            state.nextToken += 1
            state.inFlight[state.nextToken] = InFlight(operation: operation, since: .now)
            return state.nextToken
        }
        var acknowledged = true
        do {
            try await body()
        } catch {
            acknowledged = false
            self.error(operation, error)
        }
        let now = ContinuousClock.now
        let kept = Self.keptDescriptions, stallLimit = self.stallLimit
        state.withLock { state in
            guard let entry = state.inFlight.removeValue(forKey: token) else { return }
            let took = now - entry.since
            if acknowledged {
                state.operations[operation, default: 0] += 1
                state.longestAcknowledgement = max(state.longestAcknowledgement, took)
            }
            if took > stallLimit, !entry.stalled {
                state.stallCount += 1
                if state.stalls.count < kept {
                    state.stalls.append(
                        operation
                            + String(
                                format: " sent at %.1f s, answered after %.0f ms",
                                (entry.since - start).milliseconds / 1000, took.milliseconds))
                }
            }
        }
        return acknowledged
    }

    /// Records as a stall every write in flight for longer than `stallLimit` (once each): a write
    /// that is never answered is found here, one answered late when it returns.
    func checkStalls() {
        let now = ContinuousClock.now
        let kept = Self.keptDescriptions, stallLimit = self.stallLimit
        state.withLock { state in
            for (token, entry) in state.inFlight where !entry.stalled && now - entry.since > stallLimit {
                state.inFlight[token]?.stalled = true
                state.stallCount += 1
                if state.stalls.count < kept {
                    state.stalls.append(
                        entry.operation
                            + String(
                                format: " sent at %.1f s, unanswered after %.0f ms (%d writes in flight)",
                                (entry.since - start).milliseconds / 1000,
                                (now - entry.since).milliseconds, state.inFlight.count))
                }
            }
        }
    }

    struct Summary {
        var operations: [String: Int]
        var errorCount: Int
        var errors: [String]
        var stallCount: Int
        var stalls: [String]
        var longestAcknowledgementMilliseconds: Double
    }

    func summary() -> Summary {
        state.withLock { state in
            Summary(
                operations: state.operations, errorCount: state.errorCount, errors: state.errors,
                stallCount: state.stallCount, stalls: state.stalls,
                longestAcknowledgementMilliseconds: state.longestAcknowledgement.milliseconds)
        }
    }
}
