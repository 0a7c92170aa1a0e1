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

/// One encoded message as arrays to be sent back to back: `first`, then each of `rest`. A
/// segmenting codec keeps a large byte value as the caller's own array instead of copying it into
/// the message, and channels send the arrays with scatter-gather I/O (the messenger's
/// `MessageSegments` is the same shape; the codec and the messenger do not depend on each other).
package struct EncodedSegments: Sendable, Hashable {
    package var first: [UInt8]
    /// Empty unless a large byte value was kept as its own array; an empty array costs no allocation.
    package var rest: [[UInt8]]

    package init(_ first: [UInt8], rest: [[UInt8]] = []) {
        self.first = first
        self.rest = rest
    }

    /// The message as one array.
    package var joined: [UInt8] { rest.isEmpty ? first : first + rest.joined() }
}

/// Where an encode over a reused buffer left the message (`StandardMethodCodec`'s
/// `encodeMethodCall(_:reusing:)` and `encodeSuccessEnvelope(_:reusing:)`).
package enum ReusedBufferEncoding: Sendable {
    /// The buffer's first `count` bytes; the rest of it is room the next encode overwrites.
    case inBuffer(count: Int)
    /// Segments, a large byte value being kept uncopied; the buffer was left empty.
    case segments(EncodedSegments)
}

/// A method codec that can leave large byte values uncopied (the fast path for big `Uint8List`s;
/// `StandardMethodCodec` is one). Package API: a channel looks for it once, when it is created, and
/// otherwise encodes into one array with the public `MethodCodec` requirements.
package protocol SegmentingMethodCodec: MethodCodec {
    /// The bytes of `encodeMethodCall`, in segments (see `EncodedSegments`).
    func encodeMethodCallSegments(_ call: MethodCall) throws(CodecError) -> EncodedSegments
    /// The bytes of `encodeSuccessEnvelope`, in segments.
    func encodeSuccessEnvelopeSegments(_ result: StandardValue) throws(CodecError) -> EncodedSegments
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
