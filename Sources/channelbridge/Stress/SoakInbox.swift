import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgePlatform

/// The soak's list under `key`: appenders (clients of the host, and `channelbridge prefs append`
/// processes) add unique items to it while an importer takes it. Every item whose append was
/// acknowledged must in the end have been taken exactly once or still be in the list; an item
/// seen twice is a duplicate whether or not its append was acknowledged.
final class SoakInbox: Sendable {
    static let key = "inbox"

    private struct State {
        var acknowledged: [String] = []
        var taken: [String: Int] = [:]
        var takenCount = 0
        var unexpected: [String] = []
    }

    private let state = LockedValue(State())

    struct Verdict {
        var appended: Int
        var taken: Int
        var left: Int
        var lost: [String]
        var duplicated: [String]
        /// Values taken or left that are not lists of strings. (An item whose append failed may
        /// be there: the write can land after its reply is lost.)
        var unexpected: [String]
    }

    /// Items whose append was acknowledged.
    func acknowledged(_ items: [String]) {
        state.withLock { $0.acknowledged += items }
    }

    /// A value `take` returned: null (nothing there) or a list of strings.
    func taken(_ value: StandardValue) {
        let items = Self.items(value)
        state.withLock { state in
            guard let items else {
                state.unexpected.append("take returned \(value)")
                return
            }
            state.takenCount += items.count
            for item in items { state.taken[item, default: 0] += 1 }
        }
    }

    /// The verdict, given what is still in the list at the end (`remaining`, the value of `key`).
    func verdict(remaining: StandardValue) -> Verdict {
        let left = Self.items(remaining)
        return state.withLock { state in
            var seen = state.taken
            for item in left ?? [] { seen[item, default: 0] += 1 }
            var unexpected = state.unexpected
            if left == nil { unexpected.append("the list is left as \(remaining)") }
            let lost = state.acknowledged.filter { seen[$0, default: 0] == 0 }
            let duplicated = seen.filter { $0.value > 1 }.map { "\($0.key) ×\($0.value)" }.sorted()
            return Verdict(
                appended: state.acknowledged.count, taken: state.takenCount, left: left?.count ?? 0,
                lost: lost, duplicated: duplicated, unexpected: unexpected)
        }
    }

    /// The strings of a list value; `[]` for null; nil for anything else.
    static func items(_ value: StandardValue) -> [String]? {
        switch value {
        case .null: return []
        case .list(let values):
            var strings: [String] = []
            for value in values {
                guard case .string(let string) = value else { return nil }
                strings.append(string)
            }
            return strings
        default: return nil
        }
    }

    /// Appends 1–3 unique items (`<name>-<number>`) at a time, one append in flight, until `deadline`.
    func append(as name: String, socket: String, ledger: SoakLedger, until deadline: ContinuousClock.Instant) async {
        do {
            try await SoakWorkers.withPreferences(socket) { prefs, _ in
                var number = 0
                while ContinuousClock.now < deadline {
                    let items = (0..<Int.random(in: 1...3)).map { _ in
                        number += 1
                        return "\(name)-\(number)"
                    }
                    if await ledger.write(
                        "appendToList", { try await prefs.appendToList(Self.key, items.map(StandardValue.string)) })
                    {
                        acknowledged(items)
                    }
                }
            }
        } catch {
            ledger.error("appender \(name)", error)
        }
    }

    /// Takes the list every 5–50 ms until `deadline`, each take with a request id of its own.
    func importItems(socket: String, ledger: SoakLedger, until deadline: ContinuousClock.Instant) async {
        do {
            try await SoakWorkers.withPreferences(socket) { prefs, _ in
                while ContinuousClock.now < deadline {
                    var value: StandardValue = .null
                    if await ledger.write("take", { value = try await prefs.take(Self.key) }) { taken(value) }
                    try await Task.sleep(for: .milliseconds(Int.random(in: 5...50)))
                }
            }
        } catch {
            ledger.error("importer", error)
        }
    }

    /// Once every appender has stopped: takes what is left, then reads the key, which must be gone.
    func drain(socket: String, ledger: SoakLedger) async -> Verdict {
        var remaining: StandardValue = .null
        do {
            try await SoakWorkers.withPreferences(socket) { prefs, _ in
                var value: StandardValue = .null
                if await ledger.write("take", { value = try await prefs.take(Self.key) }) { taken(value) }
                remaining = try await prefs.get(Self.key)
            }
        } catch {
            ledger.error("final take", error)
        }
        return verdict(remaining: remaining)
    }
}
