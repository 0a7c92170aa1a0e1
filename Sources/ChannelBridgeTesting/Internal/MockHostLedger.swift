import ChannelBridgeCodec
import ChannelBridgeContracts

/// What a `MockHost` has seen: which interactions were made, and the calls and messages that
/// matched none. Kept behind the mock's lock; every method is a pure step on the value.
struct MockHostLedger {
    let transcript: Transcript
    /// `true` overrides every channel's order with `any` (the `--any-order` option).
    let anyOrder: Bool
    var made: [Bool]
    /// One line per call or message that matched no interaction, in arrival order.
    var unexpected: [String] = []
    /// One line per host-begun call whose reply did not match.
    var mismatches: [String] = []

    init(transcript: Transcript, anyOrder: Bool) {
        self.transcript = transcript
        self.anyOrder = anyOrder
        made = [Bool](repeating: false, count: transcript.interactions.count)
    }

    /// What arrived from the client, as the matcher sees it.
    enum Arrival {
        /// A method call (`listen` and `cancel` included) on a method or event channel.
        case call(MethodCall)
        /// A BasicMessageChannel request.
        case send(StandardValue)
        /// A one-way message.
        case post(StandardValue)

        var method: String? {
            if case .call(let call) = self { return call.method }
            return nil
        }

        var value: StandardValue {
            switch self {
            case .call(let call): return call.arguments
            case .send(let value), .post(let value): return value
            }
        }

        func fits(_ action: Transcript.Action) -> Bool {
            switch (self, action) {
            case (.call(let call), .call(let method, _, _)): return call.method == method
            case (.call(let call), .stream): return call.method == "listen"
            case (.call(let call), .cancel): return call.method == "cancel"
            case (.send, .send), (.post, .post): return true
            default: return false
            }
        }

        var summary: String {
            switch self {
            case .call(let call): return "call " + call.method + " " + ValueDifference.shown(call.arguments)
            case .send(let value): return "message " + ValueDifference.shown(value)
            case .post(let value): return "post " + ValueDifference.shown(value)
            }
        }
    }

    /// The interactions of `channel` begun by the client and not yet made, in document order.
    func open(on channel: String) -> [Transcript.Interaction] {
        transcript.interactions.filter { $0.channel == channel && $0.from == .client && !made[$0.index] }
    }

    /// Marks and returns the interaction `arrival` makes (§3), or `nil`.
    mutating func match(_ arrival: Arrival, on channel: String) -> Transcript.Interaction? {
        guard let contract = transcript.channel(named: channel) else { return nil }
        let candidates = open(on: channel)
        let inOrder = !anyOrder && contract.order == .sequence
        for interaction in inOrder ? Array(candidates.prefix(1)) : candidates {
            if arrival.fits(interaction.action), interaction.arguments.matches(arrival.value) {
                made[interaction.index] = true
                return interaction
            }
        }
        return nil
    }

    /// Records an arrival that matched nothing and returns the report line (§6): the nearest
    /// interaction and the first difference.
    mutating func reject(_ arrival: Arrival, on channel: String) -> (message: String, nearest: Int?) {
        let candidates = open(on: channel)
        let nearest =
            candidates.first { $0.method == arrival.method && arrival.fits($0.action) }
            ?? candidates.first { arrival.fits($0.action) }
            ?? candidates.first
        var message = "unexpected \(arrival.summary) on \(channel)"
        if let nearest {
            message += "; nearest recorded: interaction \(nearest.index) (\(nearest.summary)): "
            if let method = arrival.method, let expected = nearest.method, method != expected {
                message += "method: expected \(expected), got \(method)"
            } else if let difference = nearest.arguments.difference(from: arrival.value, at: "args") {
                message += difference.description
            } else {
                message +=
                    "it was expected after interaction \(previous(nearest.index, on: channel).map(String.init) ?? "none") of the channel"
            }
        } else {
            message += "; the transcript expects nothing more on this channel"
        }
        unexpected.append(message)
        return (message, nearest?.index)
    }

    /// The channel's interaction listed before `index` that is not yet made, for the order report.
    private func previous(_ index: Int, on channel: String) -> Int? {
        transcript.interactions[..<index].last { $0.channel == channel && !made[$0.index] }?.index
    }

    /// Whether the channel's transcript has a `cancel` at all (§6: a cancel it does not list is
    /// answered and not reported).
    func listsCancel(on channel: String) -> Bool {
        transcript.interactions.contains { $0.channel == channel && $0.method == "cancel" }
    }

    /// The host-begun interactions now due: not yet made, every interaction listed before them made.
    /// They are marked made, so that each is begun once.
    mutating func dueHostInteractions() -> [Transcript.Interaction] {
        var due: [Transcript.Interaction] = []
        for interaction in transcript.interactions {
            if made[interaction.index] { continue }
            guard interaction.from == .host else { break }
            made[interaction.index] = true
            due.append(interaction)
        }
        return due
    }

    /// §6: one line per interaction never made, then those that matched nothing.
    var report: [String] {
        transcript.interactions.filter { !made[$0.index] }.map {
            "missing: interaction \($0.index) on \($0.channel): \($0.summary)"
        } + unexpected.map { "unexpected: " + $0 } + mismatches.map { "mismatch: " + $0 }
    }
}
