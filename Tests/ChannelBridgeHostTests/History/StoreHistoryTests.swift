import ChannelBridgeTestSupport
import Foundation
import Testing

/// Histories of concurrent sessions against a real host, killed and restarted as they run,
/// checked against the store's model (`StoreHistoryChecker`). The suite runs a short seeded
/// history; `CHANNELBRIDGE_HISTORY_SECONDS=600` runs one by time instead, with a host kill every
/// 15 s; `CHANNELBRIDGE_HISTORY_SEED`, `…_WORKERS` and `…_KILLS` set the seed, the number of
/// workers and of kills, `CHANNELBRIDGE_HISTORY_HOST` the host executable (an absolute path, e.g.
/// `.build/release/extension-host`). A failure prints its seed.
@Suite struct StoreHistoryTests {
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["CHANNELBRIDGE_HISTORY_SEED"].flatMap(UInt64.init) ?? 20_261_204
    }

    @Test func aHistoryOfPipelinedSessionsListenersAndHostKillsObeysTheModel() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        var workload = StoreHistoryWorkload(seed: Self.seed)
        // A sanitized build runs the same checks on a shorter history: it is several times slower.
        if Sanitizer.current != nil { workload.rounds = 40 }
        var guardSeconds = 120
        if let seconds = ProcessInfo.processInfo.environment["CHANNELBRIDGE_HISTORY_SECONDS"].flatMap(Double.init) {
            workload.seconds = seconds
            workload.kills = max(2, Int(seconds / 15))
            workload.rounds = Int(seconds * 20)
            guardSeconds = Int(seconds) + 120
        }
        let environment = ProcessInfo.processInfo.environment
        if let workers = environment["CHANNELBRIDGE_HISTORY_WORKERS"].flatMap(Int.init) { workload.workers = workers }
        if let kills = environment["CHANNELBRIDGE_HISTORY_KILLS"].flatMap(Int.init) { workload.kills = kills }
        let run = workload
        let history = StoreHistory()
        let result: StoreHistoryWorkload.Result
        do {
            result = try await withHangGuard(seconds: guardSeconds) { try await run.run(directory, into: history) }
        } catch {
            let pending = history.recorded.filter { $0.outcome == .pending }
            let listed = pending.prefix(20).map {
                "worker \($0.worker) session \($0.session) #\($0.position) \($0.kind)"
            }
            Issue.record(
                Comment(
                    rawValue:
                        "seed \(Self.seed): \(error); \(pending.count) operations pending: \(listed.joined(separator: ", ")); "
                        + history.currentPhases.joined(separator: "; ")))
            throw error
        }
        let operations = result.history.recorded
        let violations = StoreHistoryChecker(operations: operations, finalList: result.finalList).violations()
        let unknown = operations.filter { $0.outcome == .unknown }.count
        print(
            "store history, seed \(Self.seed): \(operations.count) operations, \(unknown) of unknown outcome, "
                + "\(result.kills) host kills, \(result.listens) listens, \(violations.count) violations")
        #expect(
            violations.isEmpty, "seed \(Self.seed): \(violations.prefix(20).map(\.description).joined(separator: "\n"))"
        )
        #expect(result.kills == workload.kills)
        #expect(result.listenerFailures == 0, "\(history.recordedNotes)")
        #expect(operations.allSatisfy { $0.outcome != .pending })
        #expect(operations.filter { if case .failed = $0.outcome { true } else { false } }.isEmpty)
    }

    // The checker catches what it is for: histories with one fault each.

    typealias Op = StoreHistory.Operation

    static func op(
        _ worker: Int, _ session: Int, _ position: Int, _ kind: StoreHistory.Kind,
        _ outcome: StoreHistory.Outcome, invoked: Int? = nil, completed: Int? = nil
    ) -> Op {
        var op = Op(worker: worker, session: session, position: position, kind: kind, invoked: invoked ?? position * 2)
        op.completed = completed ?? (position * 2 + 1)
        op.outcome = outcome
        return op
    }

    static let ok = StoreHistory.Outcome.ok(read: nil, items: [])
    static func read(_ value: String?) -> StoreHistory.Outcome { .ok(read: value, items: []) }
    static func took(_ items: [String]) -> StoreHistory.Outcome { .ok(read: nil, items: items) }

    @Test func aReadThatMissesTheSessionsEarlierWriteIsAViolation() {
        let history = [
            Self.op(0, 0, 0, .write(key: "k", value: "a"), Self.ok),
            Self.op(0, 0, 1, .write(key: "k", value: "b"), Self.ok),
            Self.op(0, 0, 2, .read(key: "k"), Self.read("a")),
        ]
        let violations = StoreHistoryChecker(operations: history, finalList: []).violations()
        #expect(violations.map(\.description) == [#"worker 0 session 0 read #2 of k answered a; allowed: ["b"]"#])
    }

    @Test func aReadThatSeesALaterWriteOfItsSessionIsAViolation() {
        let history = [
            Self.op(0, 0, 0, .read(key: "k"), Self.read("later")),
            Self.op(0, 0, 1, .write(key: "k", value: "later"), Self.ok),
        ]
        #expect(StoreHistoryChecker(operations: history, finalList: []).violations().count == 1)
    }

    @Test func anUnknownWriteOfAnEarlierSessionMayOrMayNotBeSeen() {
        let history = [
            Self.op(0, 0, 0, .write(key: "k", value: "a"), Self.ok),
            Self.op(0, 0, 1, .write(key: "k", value: "lost?"), .unknown),
            Self.op(0, 1, 2, .read(key: "k"), Self.read("lost?")),
            Self.op(0, 1, 3, .read(key: "k"), Self.read("a")),
        ]
        #expect(StoreHistoryChecker(operations: history, finalList: []).violations().isEmpty)
    }

    @Test func anItemTakenTwiceLostOrOutOfOrderIsAViolation() {
        let appends = [
            Self.op(0, 0, 0, .append(item: "w0:0"), Self.ok),
            Self.op(0, 0, 1, .append(item: "w0:1"), Self.ok),
            Self.op(0, 0, 2, .append(item: "w0:2"), Self.ok),
        ]
        let twice = appends + [Self.op(1, 0, 0, .take(requestID: "t"), Self.took(["w0:0", "w0:1"]))]
        #expect(
            StoreHistoryChecker(operations: twice, finalList: ["w0:1", "w0:2"]).violations().map(\.description)
                == ["w0:1 is in take #0 of worker 1 and in the final list"])
        let lost = appends + [Self.op(1, 0, 0, .take(requestID: "t"), Self.took(["w0:0"]))]
        #expect(
            StoreHistoryChecker(operations: lost, finalList: ["w0:2"]).violations().map(\.description)
                == ["w0:1, acknowledged, was neither taken nor stored: lost"])
        let reordered = appends + [Self.op(1, 0, 0, .take(requestID: "t"), Self.took(["w0:1", "w0:0"]))]
        #expect(
            StoreHistoryChecker(operations: reordered, finalList: ["w0:2"]).violations().map(\.description)
                == ["take #0 of worker 1: worker 0's append #0 follows its #1"])
        let acrossTakes =
            appends + [
                Self.op(1, 0, 0, .take(requestID: "t1"), Self.took(["w0:1"]), invoked: 10, completed: 11),
                Self.op(1, 0, 1, .take(requestID: "t2"), Self.took(["w0:0", "w0:2"]), invoked: 12, completed: 13),
            ]
        #expect(
            StoreHistoryChecker(operations: acrossTakes, finalList: []).violations().map(\.description)
                == ["worker 0's append #0 was taken after its #1"])
    }
}
