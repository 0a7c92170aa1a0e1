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

    /// The bytes of `encodeMethodCall`, as arrays to be sent back to back: `first`, then `rest`. A
    /// codec may keep a large byte value as the caller's own array instead of copying it into the
    /// message; channels send the segments with scatter-gather I/O. By default `rest` is empty.
    func encodeMethodCallSegments(_ call: MethodCall) throws(CodecError) -> (first: [UInt8], rest: [[UInt8]])
    /// The bytes of `encodeSuccessEnvelope`, as arrays to be sent back to back (see
    /// `encodeMethodCallSegments`).
    func encodeSuccessEnvelopeSegments(_ result: StandardValue) throws(CodecError) -> (first: [UInt8], rest: [[UInt8]])
}

extension MethodCodec {
    public func encodeMethodCallSegments(_ call: MethodCall) throws(CodecError) -> (first: [UInt8], rest: [[UInt8]]) {
        (try encodeMethodCall(call), [])
    }

    public func encodeSuccessEnvelopeSegments(_ result: StandardValue) throws(CodecError) -> (first: [UInt8], rest: [[UInt8]]) {
        (try encodeSuccessEnvelope(result), [])
    }

    /// Writes the stacktrace slot only when the error has a stacktrace.
    public func encodeErrorEnvelope(_ error: MethodError) throws(CodecError) -> [UInt8] {
        try encodeErrorEnvelope(error, includingStacktrace: error.stacktrace != nil)
    }
}
