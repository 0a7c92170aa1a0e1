import ChannelBridgeBytes
public import ChannelBridgeContracts
public import ChannelBridgeMessenger
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform

/// A host that answers from a transcript (Protocol/transcript.md): a Swift client's tests run
/// against a channel contract without a host process, and `channelbridge mock` serves one on a
/// socket.
///
/// ```swift
/// let mock = MockHost(transcript: try Transcript(contentsOfFile: "share.json"))
/// let client = mock.connect()                // a client messenger joined to the mock in memory
/// let items = try await MethodChannel(name: "channelbridge/extension", messenger: client)
///     .invokeMethod("getInputItems")
/// client.close()
/// #expect(mock.report.isEmpty)               // every interaction made, nothing unexpected
/// ```
///
/// Calls are matched in order per channel (or in any order: a channel's `order`, or `anyOrder`);
/// a matched call gets the recorded reply (its `replyHex` exactly when given, else the reply's
/// values and examples encoded), a `listen` its reply and then its events and end; a call that
/// matches nothing gets the error `UNEXPECTED_CALL` naming the nearest recorded interaction and
/// the difference. `report` lists what was never made and what matched nothing.
public final class MockHost: Sendable {
    public let transcript: Transcript
    private let ledger: LockedValue<MockHostLedger>
    /// The calls the mock made for interactions the host begins, until their replies are compared.
    private let hostCalls = LockedValue<[Task<Void, Never>]>([])

    /// `anyOrder` matches every channel's calls in any order, whatever the transcript says.
    public init(transcript: Transcript, anyOrder: Bool = false) {
        self.transcript = transcript
        ledger = LockedValue(MockHostLedger(transcript: transcript, anyOrder: anyOrder))
    }

    /// Serves the transcript on `messenger`, the host's end of a session: installs a handler on
    /// every channel the transcript names. Several sessions may be served; they share one ledger.
    public func serve(_ messenger: any BinaryMessenger) {
        for (name, channel) in transcript.channelList {
            messenger.installMessageHandler(
                onChannel: name,
                InTaskHandler.make { [self] message in answer(message, on: name, channel: channel, messenger: messenger)
                },
                mayAnswerLater: true)
        }
        beginDueHostInteractions(on: messenger)
    }

    /// A client messenger joined in memory to a session this mock serves. Close it when done.
    public func connect() -> MessengerConnection {
        let (client, host) = InMemoryMessenger.makePair(
            client: .init(name: "mock client"), host: .init(name: "channelbridge mock"))
        serve(host)
        return client
    }

    /// §6, one line each: `missing: interaction N on CHANNEL: M ARGS` for every interaction never
    /// made, then `unexpected: …` for every call or message that matched none. Empty when the
    /// session kept to the contract.
    public var report: [String] { ledger.withLock { $0.report } }

    /// Returns once every call the mock made for an interaction the host begins has been answered
    /// and its reply compared (a mismatch is then in `report`).
    public func hostCallsAnswered() async {
        for task in hostCalls.withLock({ $0 }) { await task.value }
    }

    /// The indices of the interactions not yet made.
    public var missingInteractions: [Int] {
        ledger.withLock { ledger in ledger.made.indices.filter { !ledger.made[$0] } }
    }

    private func answer(
        _ message: [UInt8]?, on name: String, channel: Transcript.Channel,
        messenger: any BinaryMessenger
    ) -> HandlerReply {
        switch channel.kind {
        case .method, .event:
            let call: MethodCall
            do {
                call = try channel.methodCodec.decodeMethodCall(message ?? [])
            } catch {
                return errorReply(
                    channel,
                    MethodError(
                        code: "UNEXPECTED_CALL",
                        message: "a request on \(name) that is not a method call: \(error.message)"))
            }
            let arrival = MockHostLedger.Arrival.call(call)
            let outcome = ledger.withLock { ledger -> (Transcript.Interaction?, (message: String, nearest: Int?)?) in
                if let interaction = ledger.match(arrival, on: name) { return (interaction, nil) }
                if channel.kind == .event, call.method == "cancel", !ledger.listsCancel(on: name) { return (nil, nil) }
                return (nil, ledger.reject(arrival, on: name))
            }
            guard let interaction = outcome.0 else {
                guard let (text, nearest) = outcome.1 else {
                    return HandlerReply(
                        (try? channel.methodCodec.encodeSuccessEnvelope(.null)).map { Payload($0) })
                }
                return errorReply(
                    channel,
                    MethodError(
                        code: "UNEXPECTED_CALL", message: text,
                        details: [
                            "channel": .string(name), "method": .string(call.method),
                            "nearest": nearest.map { .int32(Int32($0)) } ?? .null,
                        ]))
            }
            return reply(to: interaction, channel: channel, messenger: messenger)
        case .message:
            let value = (try? channel.messageCodec.decode(message ?? [])) ?? .null
            let interaction = ledger.withLock { ledger -> Transcript.Interaction? in
                if let interaction = ledger.match(.send(value), on: name) { return interaction }
                _ = ledger.reject(.send(value), on: name)
                return nil
            }
            guard let interaction else { return HandlerReply(nil) }
            return reply(to: interaction, channel: channel, messenger: messenger)
        }
    }

    private func errorReply(_ channel: Transcript.Channel, _ error: MethodError) -> HandlerReply {
        HandlerReply(
            (try? channel.methodCodec.encodeErrorEnvelope(error, includingStacktrace: false)).map {
                Payload($0)
            })
    }

    /// The recorded reply of `interaction`; a stream's events and end follow it once it has gone.
    private func reply(
        to interaction: Transcript.Interaction, channel: Transcript.Channel,
        messenger: any BinaryMessenger
    ) -> HandlerReply {
        let then: @Sendable () -> Void = { [self] in beginDueHostInteractions(on: messenger) }
        let bytes: [UInt8]?
        switch interaction.action {
        case .call(_, _, let reply), .cancel(_, let reply):
            bytes = interaction.replyHex ?? (try? channel.encode(reply)) ?? nil
        case .stream(_, let reply, let events, let end):
            bytes = interaction.replyHex ?? (try? channel.encode(reply)) ?? nil
            let name = interaction.channel
            let payloads = events.map { (try? channel.encode($0)) ?? nil }
            return HandlerReply(bytes.map { Payload($0) }) {
                for payload in payloads { try? messenger.post(onChannel: name, message: payload) }
                if end { try? messenger.post(onChannel: name, message: nil) }
                then()
            }
        case .send(_, let reply):
            bytes =
                interaction.replyHex
                ?? reply.example.flatMap { $0 == .null ? nil : try? channel.messageCodec.encode($0) }
        case .post:
            bytes = nil
        }
        return HandlerReply(bytes.map { Payload($0) }, afterReply: then)
    }

    /// Begins the host's interactions that are due (§3): posts their messages and makes their
    /// calls, comparing each reply.
    private func beginDueHostInteractions(on messenger: any BinaryMessenger) {
        let due = ledger.withLock { $0.dueHostInteractions() }
        guard !due.isEmpty else { return }
        for interaction in due {
            guard let channel = transcript.channel(named: interaction.channel) else { continue }
            switch interaction.action {
            case .post(let message):
                let bytes = interaction.hex ?? message.example.flatMap { try? channel.messageCodec.encode($0) }
                try? messenger.post(onChannel: interaction.channel, message: bytes)
            case .call(let method, let arguments, let reply):
                let bytes =
                    interaction.hex
                    ?? (try? channel.methodCodec.encodeMethodCall(
                        MethodCall(method, arguments: arguments.example ?? .null)))
                // The call waits until it is listed, so that `hostCallsAnswered` always finds it.
                let (listed, announce) = AsyncStream<Void>.makeStream()
                let call = Task { [self] in
                    for await _ in listed { break }
                    let answer = try? await messenger.send(onChannel: interaction.channel, message: bytes)
                    let envelope = answer.flatMap { try? channel.methodCodec.decodeEnvelope($0) }
                    if let difference = reply.difference(from: envelope, at: "reply") {
                        ledger.withLock {
                            $0.mismatches.append(
                                "interaction \(interaction.index) on \(interaction.channel), method \(method): \(difference)"
                            )
                        }
                    }
                }
                hostCalls.withLock { $0.append(call) }
                announce.finish()
            default:
                continue
            }
        }
    }
}
