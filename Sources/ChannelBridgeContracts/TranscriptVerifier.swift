import ChannelBridgeCodec
package import ChannelBridgeMessenger

/// Replays the client's side of a transcript against a real host on one session and compares
/// every reply and event with the transcript's values and matchers (Protocol/transcript.md §6,
/// §7): `channelbridge verify`.
package struct TranscriptVerifier: Sendable {
    package let transcript: Transcript
    /// How long a stream's events may take to arrive, counted from when they are checked.
    package let eventTimeout: Duration

    package init(transcript: Transcript, eventTimeout: Duration = .seconds(5)) {
        self.transcript = transcript
        self.eventTimeout = eventTimeout
    }

    /// One line per mismatch (`mismatch: interaction N on CHANNEL, method M: PATH: expected E, got
    /// G`) and per interaction not checked (`not checked: …`); empty when the host kept to it.
    /// `setUp` writes an interaction's provider states (§5) before it is sent; without it they are
    /// not set up (the caller says so).
    package func verify(
        on messenger: any BinaryMessenger,
        setUp: (@Sendable ([Transcript.ProviderStates.Preference]) async throws -> Void)? = nil
    ) async -> [String] {
        var lines: [String] = []
        var streams: [String: (interaction: Transcript.Interaction, inbox: EventInbox)] = [:]
        for interaction in transcript.interactions {
            guard let channel = transcript.channel(named: interaction.channel) else { continue }
            let label =
                "interaction \(interaction.index) on \(interaction.channel), method \(interaction.method ?? "message")"
            if !interaction.given.isEmpty, let setUp {
                do {
                    try await setUp(interaction.given)
                } catch {
                    lines.append("mismatch: \(label): its provider states could not be set up: \(error)")
                    continue
                }
            }
            guard interaction.from == .client else {
                lines.append(
                    "not checked: interaction \(interaction.index) on \(interaction.channel) is begun by the host; verify replays the client's side"
                )
                continue
            }
            // A stream's events are checked before the next interaction on its channel.
            if let open = streams.removeValue(forKey: interaction.channel) {
                lines += await check(open.interaction, open.inbox, channel: channel)
            }
            let request: [UInt8]?
            switch encodeRequest(interaction, channel: channel) {
            case .success(let bytes): request = bytes
            case .failure(let reason):
                lines.append("not checked: \(label): \(reason)")
                continue
            }
            if case .post = interaction.action {
                do {
                    try messenger.post(onChannel: interaction.channel, message: request)
                } catch {
                    lines.append("mismatch: \(label): the message could not be sent: \(error)")
                }
                continue
            }
            if case .stream(_, _, let events, let end) = interaction.action {
                let inbox = EventInbox(limit: events.count + (end ? 1 : 0) + 1)
                messenger.setMessageHandler(onChannel: interaction.channel) { payload in
                    inbox.append(payload)
                    return nil
                }
                streams[interaction.channel] = (interaction, inbox)
            }
            let reply: [UInt8]?
            do {
                reply = try await messenger.send(onChannel: interaction.channel, message: request)
            } catch {
                lines.append("mismatch: \(label): reply: expected \(expectedText(interaction)), got no reply: \(error)")
                if let error = error as? MessengerError, error.code == .connectionClosed { break }
                continue
            }
            if let difference = compare(reply, with: interaction, channel: channel) {
                lines.append("mismatch: \(label): \(difference)")
            }
        }
        for (_, open) in streams.sorted(by: { $0.value.interaction.index < $1.value.interaction.index }) {
            guard let channel = transcript.channel(named: open.interaction.channel) else { continue }
            lines += await check(open.interaction, open.inbox, channel: channel)
        }
        return lines
    }

    private func encodeRequest(
        _ interaction: Transcript.Interaction, channel: Transcript.Channel
    ) -> Result<[UInt8]?, Unsendable> {
        if let hex = interaction.hex { return .success(hex) }
        guard let value = interaction.arguments.example else {
            return .failure(Unsendable(reason: "a matcher in its arguments has no example to send"))
        }
        do {
            if let method = interaction.method {
                return .success(try channel.methodCodec.encodeMethodCall(MethodCall(method, arguments: value)))
            }
            return .success(try channel.messageCodec.encode(value))
        } catch {
            return .failure(Unsendable(reason: "its arguments cannot be encoded: \(error.message)"))
        }
    }

    private struct Unsendable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    private func expectedText(_ interaction: Transcript.Interaction) -> String {
        switch interaction.action {
        case .call(_, _, let reply), .stream(_, let reply, _, _), .cancel(_, let reply): return reply.text
        case .send(_, let reply): return reply.text
        case .post: return "nothing"
        }
    }

    private func compare(
        _ reply: [UInt8]?, with interaction: Transcript.Interaction, channel: Transcript.Channel
    ) -> ValueDifference? {
        switch interaction.action {
        case .call(_, _, let pattern), .stream(_, let pattern, _, _), .cancel(_, let pattern):
            var envelope: MethodEnvelope?
            if let reply {
                do {
                    envelope = try channel.methodCodec.decodeEnvelope(reply)
                } catch {
                    return ValueDifference(
                        path: "reply", expected: pattern.text, actual: "bytes that are no envelope (\(error.message))")
                }
            }
            if let difference = pattern.difference(from: envelope, at: "reply") { return difference }
        case .send(_, let pattern):
            let value: StandardValue
            do {
                value = try reply.map { try channel.messageCodec.decode($0) } ?? .null
            } catch {
                return ValueDifference(
                    path: "reply", expected: pattern.text, actual: "bytes that do not decode (\(error))")
            }
            if let difference = pattern.difference(from: value, at: "reply") { return difference }
        case .post:
            return nil
        }
        if let expected = interaction.replyHex, expected != reply {
            return ValueDifference(
                path: "replyHex", expected: Hex.encode(expected), actual: reply.map { Hex.encode($0) } ?? "a null reply"
            )
        }
        return nil
    }

    /// Compares the events a stream delivered with its interaction's, waiting for them.
    private func check(
        _ interaction: Transcript.Interaction, _ inbox: EventInbox, channel: Transcript.Channel
    ) async -> [String] {
        guard case .stream(_, _, let events, let end) = interaction.action else { return [] }
        let label = "interaction \(interaction.index) on \(interaction.channel), method listen"
        let wanted = events.count + (end ? 1 : 0)
        let payloads = await inbox.payloads(atLeast: wanted, within: eventTimeout)
        for (index, event) in events.enumerated() {
            guard index < payloads.count else {
                return [
                    "mismatch: \(label): events[\(index)]: expected \(event.text), got nothing within \(eventTimeout)"
                ]
            }
            guard let payload = payloads[index] else {
                return ["mismatch: \(label): events[\(index)]: expected \(event.text), got the end of the stream"]
            }
            let envelope: MethodEnvelope
            do {
                envelope = try channel.methodCodec.decodeEnvelope(payload)
            } catch {
                return [
                    "mismatch: \(label): events[\(index)]: expected \(event.text), got bytes that are no envelope (\(error.message))"
                ]
            }
            if let difference = event.difference(from: envelope, at: "events[\(index)]") {
                return ["mismatch: \(label): \(difference)"]
            }
        }
        if end {
            guard events.count < payloads.count else {
                return ["mismatch: \(label): end: expected the end of the stream, got nothing within \(eventTimeout)"]
            }
            if let payload = payloads[events.count] {
                let shown =
                    (try? channel.methodCodec.decodeEnvelope(payload)).map { Transcript.ReplyPattern.describe($0) }
                    ?? Hex.encode(payload)
                return ["mismatch: \(label): end: expected the end of the stream, got \(shown)"]
            }
        } else if payloads.count > events.count, let payload = payloads[events.count] {
            // Without `end`, whether and when the stream ends is not part of the contract; a
            // further event is.
            let shown =
                (try? channel.methodCodec.decodeEnvelope(payload)).map { Transcript.ReplyPattern.describe($0) }
                ?? Hex.encode(payload)
            return ["mismatch: \(label): events[\(events.count)]: expected nothing more, got \(shown)"]
        }
        return []
    }
}
