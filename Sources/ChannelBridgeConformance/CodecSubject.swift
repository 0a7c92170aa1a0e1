public import ChannelBridgeCodec

/// A codec implementation under test: ours in-process, or another language's behind an adapter.
/// Any thrown error counts as "rejected"; its description is reported.
public protocol CodecSubject: Sendable {
    func encodeMessage(_ value: StandardValue, codec: VectorCodec) async throws -> [UInt8]
    func decodeMessage(_ bytes: [UInt8], codec: VectorCodec) async throws -> StandardValue
    func encodeMethodCall(_ call: MethodCall, codec: VectorCodec) async throws -> [UInt8]
    func decodeMethodCall(_ bytes: [UInt8], codec: VectorCodec) async throws -> MethodCall
    func encodeSuccessEnvelope(_ result: StandardValue, codec: VectorCodec) async throws -> [UInt8]
    func encodeErrorEnvelope(
        _ error: MethodError, includingStacktrace: Bool, codec: VectorCodec
    ) async throws -> [UInt8]
    func decodeEnvelope(_ bytes: [UInt8], codec: VectorCodec) async throws -> MethodEnvelope
}

/// This package's own codecs.
public struct BuiltInCodecs: CodecSubject {
    public init() {}

    private func message(_ codec: VectorCodec) -> any MessageCodec<StandardValue> {
        codec == .json ? JSONMessageCodec() : StandardMessageCodec()
    }

    private func method(_ codec: VectorCodec) -> any MethodCodec {
        codec == .json ? JSONMethodCodec() : StandardMethodCodec()
    }

    public func encodeMessage(_ value: StandardValue, codec: VectorCodec) throws -> [UInt8] {
        try message(codec).encode(value)
    }

    public func decodeMessage(_ bytes: [UInt8], codec: VectorCodec) throws -> StandardValue {
        try message(codec).decode(bytes)
    }

    public func encodeMethodCall(_ call: MethodCall, codec: VectorCodec) throws -> [UInt8] {
        try method(codec).encodeMethodCall(call)
    }

    public func decodeMethodCall(_ bytes: [UInt8], codec: VectorCodec) throws -> MethodCall {
        try method(codec).decodeMethodCall(bytes)
    }

    public func encodeSuccessEnvelope(_ result: StandardValue, codec: VectorCodec) throws -> [UInt8] {
        try method(codec).encodeSuccessEnvelope(result)
    }

    public func encodeErrorEnvelope(
        _ error: MethodError, includingStacktrace: Bool, codec: VectorCodec
    ) throws -> [UInt8] {
        try method(codec).encodeErrorEnvelope(error, includingStacktrace: includingStacktrace)
    }

    public func decodeEnvelope(_ bytes: [UInt8], codec: VectorCodec) throws -> MethodEnvelope {
        try method(codec).decodeEnvelope(bytes)
    }
}
