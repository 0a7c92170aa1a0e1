import ChannelBridgeCodec

extension SessionTap {
    /// `value` as a transcript shows it on `channel` (TVN text, or a placeholder matcher when
    /// redacted), and whether anything in it was redacted.
    func shown(_ value: StandardValue, on channel: String) -> ([UInt8], redacted: Bool) {
        if redactedChannels.contains(channel) { return (Array(RecordedValue.placeholder(for: value).text.utf8), true) }
        return values.text(value)
    }

    /// A reply or event envelope: `{"success":V}` or `{"error":{"code":…,"message":…,"details":…}}`.
    func envelopeText(_ envelope: MethodEnvelope, on channel: String, redacted: inout Bool) -> [UInt8] {
        switch envelope {
        case .success(let value):
            let (json, hidden) = shown(value, on: channel)
            redacted = redacted || hidden
            var out = Array(#"{"success":"#.utf8)
            out.append(contentsOf: json)
            out.append(UInt8(ascii: "}"))
            return out
        case .error(let error):
            let (details, hidden) = shown(error.details, on: channel)
            let channelRedacted = redactedChannels.contains(channel)
            redacted = redacted || hidden || channelRedacted
            var out = Array(#"{"error":{"code":"#.utf8)
            JSONWriter.writeString(error.code, into: &out)
            out.append(contentsOf: #","message":"#.utf8)
            if let message = error.message {
                if channelRedacted {
                    out.append(contentsOf: RecordedValue.placeholder(for: .string("")).text.utf8)
                } else {
                    JSONWriter.writeString(message, into: &out)
                }
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(contentsOf: #","details":"#.utf8)
            out.append(contentsOf: details)
            out.append(contentsOf: "}}".utf8)
            return out
        }
    }

    /// An event's envelope as text; nil when `payload` is not a standard envelope.
    func eventText(_ payload: [UInt8], on channel: String) -> [UInt8]? {
        guard let envelope = try? StandardMethodCodec().decodeEnvelope(payload) else { return nil }
        var redacted = false
        return envelopeText(envelope, on: channel, redacted: &redacted)
    }
}
