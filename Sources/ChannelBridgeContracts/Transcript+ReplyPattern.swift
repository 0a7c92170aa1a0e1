package import ChannelBridgeCodec

extension Transcript.ReplyPattern {
    /// The first difference between a decoded envelope (`nil`: a null reply) and this pattern;
    /// `path` names the reply (`reply`, `events[2]`).
    package func difference(from envelope: MethodEnvelope?, at path: String) -> ValueDifference? {
        switch (self, envelope) {
        case (.notImplemented, nil):
            return nil
        case (.success(let pattern), .success(let value)?):
            return pattern.difference(from: value, at: path + ".success")
        case (.error(let code, let message, let details), .error(let error)?):
            if error.code != code {
                return ValueDifference(
                    path: path + ".error.code", expected: TypedValueNotation.canonicalText(.string(code)),
                    actual: TypedValueNotation.canonicalText(.string(error.code)))
            }
            if let found = message.difference(
                from: error.message.map(StandardValue.string) ?? .null, at: path + ".error.message")
            {
                return found
            }
            return details.difference(from: error.details, at: path + ".error.details")
        default:
            return ValueDifference(path: path, expected: text, actual: Self.describe(envelope))
        }
    }

    /// The pattern as a report shows it: `success V`, `error CODE`, `not implemented`.
    package var text: String {
        switch self {
        case .success(let value): return "success " + value.text
        case .error(let code, let message, _): return "error \(code) \(message.text)"
        case .notImplemented: return "not implemented"
        }
    }

    /// A decoded envelope as a report shows it.
    package static func describe(_ envelope: MethodEnvelope?) -> String {
        switch envelope {
        case nil: return "not implemented"
        case .success(let value)?: return "success " + ValueDifference.shown(value)
        case .error(let error)?:
            return "error \(error.code) " + ValueDifference.shown(error.message.map(StandardValue.string) ?? .null)
        }
    }

    /// Whether every matcher the pattern holds has an example, so it can be sent.
    package var canBeSent: Bool {
        switch self {
        case .notImplemented: return true
        case .success(let value): return value.example != nil
        case .error(_, let message, let details): return message.example != nil && details.example != nil
        }
    }
}
