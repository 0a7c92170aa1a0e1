import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec

/// `pipelined-order`: one session sends 1,000 rounds of calls (sets, removes, `appendToList`,
/// `take`, `removeAll`, and reads in between) with 4–16 in flight, a new window each round: the
/// next call goes out as soon as the oldest is answered. Each request is on the wire before the
/// next call starts, so the order sent is known; the host must act on them in that order (Protocol/extension-host.md, "a session's calls
/// in order"). Every reply of a read or a take is compared with a sequential model of the group
/// at its place in the order, and at the end every key with the model's value: a stale key, a
/// read that saw a later or an earlier write, or a list out of order fails the scenario.
enum PipelinedOrderScenario {
    static let keys = 24
    static let listKey = "order-list"

    /// One call: what is sent, and what the model says its reply must be (`nil` for a write,
    /// whose reply is only required to succeed).
    private struct Call {
        var method: String
        var arguments: StandardValue
        var expected: StandardValue?
    }

    /// The group as the host must hold it after every call sent so far.
    private struct Model {
        var values: [String: StandardValue] = [:]
        var sequence = 0
        var takes = 0

        mutating func next(_ random: inout SplitMix) -> Call {
            sequence += 1
            let key = "k\(random.next(below: keys))"
            switch random.next(below: 100) {
            case 0..<40:
                let value = StandardValue.string("v\(sequence)")
                values[key] = value
                return Call(method: "setString", arguments: ["key": .string(key), "value": value])
            case 40..<50:
                values[key] = nil
                return Call(method: "remove", arguments: ["key": .string(key)])
            case 50..<70:
                let item = StandardValue.int32(Int32(sequence))
                if case .list(let items)? = values[listKey] {
                    values[listKey] = .list(items + [item])
                } else {
                    values[listKey] = .list([item])
                }
                return Call(method: "appendToList", arguments: ["key": .string(listKey), "values": .list([item])])
            case 70..<85:
                return Call(method: "getString", arguments: ["key": .string(key)], expected: values[key] ?? .null)
            case 85..<92:
                return Call(method: "get", arguments: ["key": .string(listKey)], expected: values[listKey] ?? .null)
            case 92..<99:
                takes += 1
                let taken = values[listKey] ?? .null
                values[listKey] = nil
                return Call(
                    method: "take", arguments: ["key": .string(listKey), "requestId": .string("order-\(sequence)")],
                    expected: taken)
            default:
                values.removeAll()
                return Call(method: "removeAll", arguments: .null)
            }
        }
    }

    static func run(settings: StressSettings, report: StressReport) async throws {
        let rounds = settings.count(1000, minimum: 10)
        let seed = settings.seed ?? UInt64.random(in: 1...UInt64.max)
        try await StressHost.with("pipelined-order", settings: settings) { host in
            let client = try await ExtensionHostClient.connect(to: host.socket)
            defer { client.close() }
            let prefs = try await client.sharedPreferences(appGroup: StressHost.appGroup)
            let channel = prefs.channel
            var random = SplitMix(seed: seed)
            var model = Model()
            var calls = 0, mismatchedReplies = 0, mismatches: [String] = []
            var inFlight: [(round: Int, call: Call, reply: Task<StandardValue, any Error>)] = []
            inFlight.reserveCapacity(16)
            func settle(_ sent: (round: Int, call: Call, reply: Task<StandardValue, any Error>)) async throws {
                let value = try await sent.reply.value
                calls += 1
                guard let expected = sent.call.expected, value != expected else { return }
                mismatchedReplies += 1
                guard mismatches.count < 20 else { return }
                mismatches.append(
                    "round \(sent.round): \(sent.call.method)(\(sent.call.arguments.description)) answered "
                        + "\(value.description), expected \(expected.description)")
            }
            for round in 0..<rounds {
                // A sliding window: the next call is sent as soon as the oldest in flight is
                // answered, so requests keep arriving while earlier ones finish and the ones
                // waiting behind them are started.
                let window = 4 + random.next(below: 13)
                for _ in 0..<(window * (1 + random.next(below: 4))) {
                    if inFlight.count >= window { try await settle(inFlight.removeFirst()) }
                    let call = model.next(&random)
                    // `Task.immediate` runs the call until it first suspends, which is after its
                    // request is written: the next call's request follows it on the wire.
                    let reply = Task.immediate {
                        try await channel.invokeMethod(call.method, arguments: call.arguments)
                    }
                    inFlight.append((round, call, reply))
                }
            }
            while !inFlight.isEmpty { try await settle(inFlight.removeFirst()) }
            let stored = Dictionary(
                try await prefs.getAll().map { entry -> (String, StandardValue) in
                    guard case .string(let key) = entry.key else { return ("?", entry.value) }
                    return (key, entry.value)
                }, uniquingKeysWith: { first, _ in first })
            let staleKeys = Set(stored.keys).union(model.values.keys).filter { stored[$0] != model.values[$0] }
            for key in staleKeys.sorted().prefix(20) {
                mismatches.append(
                    "at the end, key '\(key)' holds \(stored[key]?.description ?? "nothing"), "
                        + "expected \(model.values[key]?.description ?? "nothing")")
            }
            report.figure("rounds", rounds)
            report.figure("calls", calls)
            report.figure("takes", model.takes)
            report.figure("stale_keys", staleKeys.count, "(target 0)")
            report.figure("mismatched_replies", mismatchedReplies, "(target 0)")
            if !mismatches.isEmpty {
                for line in mismatches { Output.error("pipelined-order: " + line) }
                throw StressError(
                    "pipelined-order failed: the host did not act in the order sent "
                        + "(\(staleKeys.count) stale keys, \(mismatchedReplies) replies; again with --seed \(seed))")
            }
        }
    }
}

/// A small seeded generator, so that a failing run's calls can be told from its seed.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
