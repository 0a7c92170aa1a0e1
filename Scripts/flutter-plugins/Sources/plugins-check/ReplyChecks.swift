import ChannelBridge

/// A call as a Dart half makes it: what to print, the channel and the arguments.
struct DartCall {
    var label: String
    var channel: String
    var arguments: [StandardValue]
}

/// Sends calls and compares each reply with what the Dart half expects, printing one line per
/// reply ("ok" or "DIFF", with both values in typed value notation) and counting.
struct ReplyChecks {
    let messenger: any BinaryMessenger
    private(set) var passed = 0
    private(set) var total = 0

    init(messenger: any BinaryMessenger) {
        self.messenger = messenger
    }

    /// Checks `call`'s reply against `expected` (maps compare without regard to order, as Dart's
    /// code reads them into a `Map`; with `unorderedLists`, lists too, for results Dart turns into a
    /// `Set`).
    mutating func expect(_ call: DartCall, _ expected: StandardValue, unorderedLists: Bool = false) async {
        total += 1
        let reply: StandardValue?
        do {
            reply = try await DartSide.send(call.channel, call.arguments, on: messenger)
        } catch {
            print("DIFF \(call.label): expected \(expected), the call failed: \(error)")
            return
        }
        guard let reply else {
            print("DIFF \(call.label): expected \(expected), got a null reply (Dart: channel-error)")
            return
        }
        if Self.normalized(reply, unorderedLists) == Self.normalized(expected, unorderedLists) {
            passed += 1
            print("ok   \(call.label) -> \(reply)")
        } else {
            print("DIFF \(call.label): expected \(expected), got \(reply)")
        }
    }

    /// `value` with map entries (and, if asked, list elements) in one order.
    private static func normalized(_ value: StandardValue, _ unorderedLists: Bool) -> StandardValue {
        switch value {
        case .map(let entries):
            return .map(
                entries.map { StandardValue.MapEntry($0.key, normalized($0.value, unorderedLists)) }
                    .sorted { $0.key.description < $1.key.description })
        case .list(let elements):
            let inner = elements.map { normalized($0, unorderedLists) }
            return .list(unorderedLists ? inner.sorted { $0.description < $1.description } : inner)
        default:
            return value
        }
    }
}
