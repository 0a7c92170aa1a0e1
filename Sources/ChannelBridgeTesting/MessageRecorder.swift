public import ChannelBridgeCodec
import ChannelBridgeMessenger

/// Every message that crossed a `TestMessenger`, in the order it was sent, in both directions:
/// what the code under test sent (and the replies it got) and what it received (and the replies
/// it gave).
///
/// Payloads are decoded with the channel's method codec (`StandardMethodCodec` unless one was set
/// with `setCodec(_:forChannel:)` or given to a `TestMessenger` method): requests as method
/// calls, replies and one-way messages as envelopes, each when the bytes decode as one. The raw
/// bytes are always kept.
///
/// ```swift
/// let test = TestMessenger()
/// // ... register a plugin on test.messenger and drive it ...
/// #expect(test.recorder.calls(on: "shared_preference_app_group").map(\.method) == ["setAppGroup", "getString"])
/// #expect(test.recorder.replies(on: "shared_preference_app_group").map { $0?.envelope }
///         == [.success(nil), .success("x")])
/// print(test.recorder.transcript)   // one line per message, for a failing test's log
/// ```
public final class MessageRecorder: Sendable {
    private struct State: Sendable {
        var records: [MessageRecord] = []
        var nextSequence = 1
        var codecs: [String: any MethodCodec] = [:]
    }

    private let state = Observed(State())

    init() {}

    // MARK: Decoding

    /// Decodes the payloads of `channel` with `codec` from now on (records already made keep what
    /// they decoded to). Set it before the traffic you want decoded.
    public func setCodec(_ codec: some MethodCodec, forChannel channel: String) {
        state.update { $0.codecs[channel] = codec }
    }

    /// The codec used for `channel`: the one set, else `StandardMethodCodec`.
    public func codec(forChannel channel: String) -> any MethodCodec {
        state.read { $0.codecs[channel] } ?? StandardMethodCodec()
    }

    // MARK: Reading

    /// Everything recorded so far, in order.
    public var records: [MessageRecord] {
        state.read { $0.records }
    }

    /// The records of `channel`, of one direction when `direction` is given.
    public func records(on channel: String, direction: MessageRecord.Direction? = nil) -> [MessageRecord] {
        records.filter { $0.channel == channel && (direction == nil || $0.direction == direction) }
    }

    /// The requests of `channel` that decode as method calls, decoded, in order.
    public func calls(on channel: String, direction: MessageRecord.Direction? = nil) -> [MethodCall] {
        records(on: channel, direction: direction).compactMap { $0.kind == .request ? $0.call : nil }
    }

    /// How each request of `channel` ended, in order (`nil` for one still waiting).
    public func replies(on channel: String, direction: MessageRecord.Direction? = nil) -> [MessageRecord.Reply?] {
        records(on: channel, direction: direction).filter { $0.kind == .request }.map(\.reply)
    }

    /// The one-way messages of `channel` (event-channel events and ends of stream), in order.
    public func messages(on channel: String, direction: MessageRecord.Direction? = nil) -> [MessageRecord] {
        records(on: channel, direction: direction).filter { $0.kind == .message }
    }

    /// One line per record, for logs and failure messages.
    public var transcript: String {
        records.map(\.description).joined(separator: "\n")
    }

    /// Suspends until `condition` holds for the records (at once if it already does), or until the
    /// calling task is cancelled. For messages that cross after the call that caused them returned,
    /// such as an event channel's `cancel`, which a listener sends when its stream ends.
    public func waitUntil(_ condition: @escaping @Sendable ([MessageRecord]) -> Bool) async {
        await state.wait { condition($0.records) }
    }

    /// Forgets every record; sequence numbers go on from where they were.
    public func removeAll() {
        state.update { $0.records = [] }
    }

    // MARK: Recording (for the messengers of a TestMessenger)

    /// Records a request, runs `send` and records how it ended; returns or rethrows its outcome.
    func recordingRequest(
        channel: String, direction: MessageRecord.Direction, payload: [UInt8]?,
        _ send: () async throws -> [UInt8]?
    ) async throws -> [UInt8]? {
        let sequence = append(channel: channel, direction: direction, kind: .request, payload: payload)
        do {
            let reply = try await send()
            finish(sequence, channel: channel, reply.map { .payload($0, envelope: nil) } ?? .null)
            return reply
        } catch {
            finish(sequence, channel: channel, Self.reply(for: error, channel: channel))
            throw error
        }
    }

    /// Records a one-way message, then runs `post`; the record is withdrawn if `post` throws, as
    /// nothing was sent then.
    func recordingMessage(
        channel: String, direction: MessageRecord.Direction, payload: [UInt8]?,
        _ post: () throws -> Void
    ) throws {
        // Recorded first: delivery is synchronous, so what the message causes is recorded after it.
        let sequence = append(channel: channel, direction: direction, kind: .message, payload: payload)
        do {
            try post()
        } catch {
            state.update { $0.records.removeAll { $0.sequence == sequence } }
            throw error
        }
    }

    private func append(
        channel: String, direction: MessageRecord.Direction, kind: MessageRecord.Kind,
        payload: [UInt8]?
    ) -> Int {
        let codec = codec(forChannel: channel)
        var call: MethodCall?
        var event: MethodEnvelope?
        if let payload {
            switch kind {
            case .request: call = try? codec.decodeMethodCall(payload)
            case .message: event = try? codec.decodeEnvelope(payload)
            }
        }
        return state.update { state in
            defer { state.nextSequence += 1 }
            state.records.append(
                MessageRecord(
                    sequence: state.nextSequence, channel: channel, direction: direction,
                    kind: kind, payload: payload, call: call, event: event))
            return state.nextSequence
        }
    }

    private func finish(_ sequence: Int, channel: String, _ reply: MessageRecord.Reply) {
        var reply = reply
        if case .payload(let bytes, _) = reply {
            reply = .payload(bytes, envelope: try? codec(forChannel: channel).decodeEnvelope(bytes))
        }
        state.update { state in
            // Searched from the end: the request is usually among the latest records.
            guard let index = state.records.lastIndex(where: { $0.sequence == sequence }) else { return }
            state.records[index].reply = reply
        }
    }

    private static func reply(for error: any Error, channel: String) -> MessageRecord.Reply {
        switch error {
        case let error as MessengerError: return .failed(error)
        case is CancellationError: return .cancelled
        default: return .failed(MessengerError(.transport, String(describing: error), channel: channel))
        }
    }
}
