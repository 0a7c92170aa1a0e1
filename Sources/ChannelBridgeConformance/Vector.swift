public import ChannelBridgeCodec

/// The codec family a vector file is written for: its top-level `"codec"` (absent = standard).
public enum VectorCodec: String, Sendable, Hashable {
    case standard
    case json
}

/// One entry of a vector file, with what a conforming codec must do with it.
public struct Vector: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable {
        case message
        case methodCall = "method_call"
        case envelope
    }

    public enum Check: Sendable, Hashable {
        /// Encode to exactly `hex`, and decode `hex` back to the same value.
        case message(StandardValue, hex: [UInt8])
        case methodCall(MethodCall, hex: [UInt8])
        case successEnvelope(StandardValue, hex: [UInt8])
        case errorEnvelope(MethodError, includingStacktrace: Bool, hex: [UInt8])
        /// Decode only: `expected` nil means the decoder must reject the bytes.
        case malformed(Mode, hex: [UInt8], expected: Expected?)
    }

    /// What an accepted malformed-section input decodes to.
    public enum Expected: Sendable, Hashable {
        case message(StandardValue)
        case methodCall(MethodCall)
        case envelope(MethodEnvelope)
    }

    public var file: String
    public var section: String
    public var name: String
    public var codec: VectorCodec
    public var check: Check

    /// `file:name`, how failures are reported.
    public var label: String { "\(file):\(name)" }
}
