package import ChannelBridgeBytes

/// Encodes messages to bytes and back, for a `BasicMessageChannel`.
///
/// Decoding treats its input as untrusted: every failure is a thrown `CodecError`, never a crash.
public protocol MessageCodec<Message>: Sendable {
    associatedtype Message: Sendable
    func encode(_ message: Message) throws(CodecError) -> [UInt8]
    /// Zero bytes decode as the codec's null value where it has one.
    func decode(_ bytes: [UInt8]) throws(CodecError) -> Message
}

/// Encodes method calls and reply envelopes, for a `MethodChannel`.
public protocol MethodCodec: Sendable {
    func encodeMethodCall(_ call: MethodCall) throws(CodecError) -> [UInt8]
    func decodeMethodCall(_ bytes: [UInt8]) throws(CodecError) -> MethodCall
    func encodeSuccessEnvelope(_ result: StandardValue) throws(CodecError) -> [UInt8]
    /// Writes code, message and details, and the stacktrace as a fourth value when
    /// `includingStacktrace` is true (as Flutter's `encodeErrorEnvelopeWithStacktrace` does).
    func encodeErrorEnvelope(_ error: MethodError, includingStacktrace: Bool) throws(CodecError) -> [UInt8]
    func decodeEnvelope(_ bytes: [UInt8]) throws(CodecError) -> MethodEnvelope
}

/// A method codec that can leave large byte values uncopied (the fast path for big `Uint8List`s;
/// `StandardMethodCodec` is one). Package API: a channel looks for it once, when it is created, and
/// otherwise encodes into one array with the public `MethodCodec` requirements.
package protocol SegmentingMethodCodec: MethodCodec {
    /// The bytes of `encodeMethodCall` as a payload of its own: one array, or, when a large byte
    /// value was kept as the caller's own array, that array as a segment (`Payload.segments`).
    func encodeMethodCallSegments(_ call: MethodCall) throws(CodecError) -> Payload
    /// The bytes of `encodeSuccessEnvelope`, as `encodeMethodCallSegments` gives a call's.
    func encodeSuccessEnvelopeSegments(_ result: StandardValue) throws(CodecError) -> Payload
    /// This codec when it is the Standard one, whose fast paths (encoding into a reused buffer,
    /// decoding in place) a channel then calls directly.
    var standard: StandardMethodCodec? { get }
}

extension MethodCodec {
    /// Writes the stacktrace slot only when the error has a stacktrace.
    public func encodeErrorEnvelope(_ error: MethodError) throws(CodecError) -> [UInt8] {
        try encodeErrorEnvelope(error, includingStacktrace: error.stacktrace != nil)
    }
}
