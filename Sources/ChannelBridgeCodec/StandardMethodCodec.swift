package import ChannelBridgeBytes

/// Flutter's `StandardMethodCodec`: a method call is the method name (a String value) followed by
/// the arguments value; a success envelope is `00` and the result; an error envelope is `01`, the
/// code, the message (or null), the details and, optionally, a stacktrace (String or null).
///
/// ```swift
/// let codec = StandardMethodCodec()
/// let call = try codec.encodeMethodCall(MethodCall("exit"))   // 07 04 65786974 00
/// ```
public struct StandardMethodCodec: MethodCodec, SegmentingMethodCodec {
    public var messageCodec: StandardMessageCodec

    public init(_ messageCodec: StandardMessageCodec = StandardMessageCodec()) {
        self.messageCodec = messageCodec
    }

    public func encodeMethodCall(_ call: MethodCall) throws(CodecError) -> [UInt8] {
        var writer = try written(segmenting: false) { (writer) throws(CodecError) in
            try Self.write(call.method, arguments: call.arguments, into: &writer)
        }
        return writer.takeBytes()
    }

    /// A `Uint8List` of 64 KiB or more stays the value's own array, uncopied.
    package func encodeMethodCallSegments(_ call: MethodCall) throws(CodecError) -> Payload {
        var writer = try written(segmenting: true) { (writer) throws(CodecError) in
            try Self.write(call.method, arguments: call.arguments, into: &writer)
        }
        return writer.takeSegments()
    }

    /// The bytes of `encodeMethodCallSegments`, written over `buffer`'s storage when they make one
    /// array (so a call costs no allocation): a lent payload (`Payload.isLent`), `buffer`'s first
    /// bytes, the rest of the storage being room. When a large byte value was kept uncopied,
    /// returns the payload in segments instead, and `buffer`'s storage is dropped.
    package func encodeMethodCall(
        _ call: MethodCall, reusing buffer: consuming [UInt8]
    ) throws(CodecError) -> Payload {
        try encodeMethodCall(call.method, arguments: call.arguments, reusing: consume buffer)
    }

    /// `encodeMethodCall(_:reusing:)` of the call's parts, which a channel has apart: no
    /// `MethodCall` to build, and no `StandardValue` around the name.
    package func encodeMethodCall(
        _ method: String, arguments: StandardValue,
        reusing buffer: consuming [UInt8]
    ) throws(CodecError) -> Payload {
        try written(reusing: consume buffer) { (writer) throws(CodecError) in
            try Self.write(method, arguments: arguments, into: &writer)
        }
    }

    /// What `body` wrote: lent in `buffer` when it makes one array, else in segments.
    private func written(
        reusing buffer: consuming [UInt8],
        _ body: (inout StandardWriter) throws(CodecError) -> Void
    ) throws(CodecError) -> Payload {
        var writer = messageCodec.makeWriter(reusing: &buffer)
        try body(&writer)
        if let count = writer.giveBackBuffer(to: &buffer) { return Payload(lending: buffer, count: count) }
        return writer.takeSegments()
    }

    private static func write(
        _ method: String, arguments: StandardValue, into writer: inout StandardWriter
    ) throws(CodecError) {
        writer.writeString(method)
        try writer.writeValue(arguments)
    }

    /// A fresh writer after `body` wrote to it. The writer goes by `inout` rather than as a
    /// returned copy: copying it cost a retain and release of its buffers per message.
    private func written(
        segmenting: Bool,
        _ body: (inout StandardWriter) throws(CodecError) -> Void
    ) throws(CodecError) -> StandardWriter {
        var writer = messageCodec.makeWriter(segmenting: segmenting)
        try body(&writer)
        return writer
    }

    public func decodeMethodCall(_ bytes: [UInt8]) throws(CodecError) -> MethodCall {
        let result: Result<MethodCall, CodecError> = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in try decodeMethodCall(in: raw) }
        }
        return try result.get()
    }

    /// `decodeMethodCall` of bytes where they lie: a messenger's receive buffer.
    package func decodeMethodCall(in bytes: UnsafeRawBufferPointer) throws(CodecError) -> MethodCall {
        guard !bytes.isEmpty else {
            throw CodecError(.invalidMethodCall, "method call is empty", offset: 0)
        }
        return try messageCodec.read(raw: bytes) { (reader: inout StandardReader) throws(CodecError) in
            try Self.readCall(&reader)
        }
    }

    /// The method name of the call `decodeMethodCall(in:recentMethod:)` decoded last, and its
    /// UTF-8, kept apart so that comparing a call's first bytes with it reads no string.
    package struct RecentMethod: Sendable {
        package fileprivate(set) var name = ""
        fileprivate var utf8: [UInt8] = []

        package init() {}
    }

    /// `decodeMethodCall(in:)`, with `recent` the method of the call this decoded before: a call
    /// to the same method takes that string again instead of building one from its bytes
    /// (building one is a large share of decoding a small call). Calls to the same methods in
    /// a row are the common case; any other call is decoded in full and remembered.
    package func decodeMethodCall(
        in bytes: UnsafeRawBufferPointer, recentMethod recent: inout RecentMethod
    ) throws(CodecError) -> MethodCall {
        guard let nameLength = Self.recentNameLength(of: recent, startsCall: bytes) else {
            let call = try decodeMethodCall(in: bytes)
            recent.name = call.method
            recent.utf8 = Array(call.method.utf8)
            return call
        }
        let method = recent.name
        return try messageCodec.read(raw: bytes) { (reader: inout StandardReader) throws(CodecError) in
            reader.skip(2 + nameLength)
            return MethodCall(method, arguments: try reader.readValue())
        }
    }

    /// The arguments of the call in `bytes` where they lie, when the call is to `recent`'s method
    /// (`recent.name`), as `decodeMethodCall(in:recentMethod:)` finds it, which remembers the
    /// method of every other call; `nil` otherwise. `inout` only so that `recent` is not copied.
    package func recentCallArguments(
        in bytes: UnsafeRawBufferPointer, recent: inout RecentMethod
    ) -> StandardEncodedArguments? {
        guard let nameLength = Self.recentNameLength(of: recent, startsCall: bytes) else { return nil }
        return StandardEncodedArguments(
            bytes: UnsafeRawBufferPointer(rebasing: bytes[(2 + nameLength)...]), maxDepth: messageCodec.maxDepth)
    }

    /// The UTF-8 length of `recent`'s name when `bytes` start with it as a String value in the
    /// short size form (`07`, the length, the bytes): what decoding the call's name would give.
    static func recentNameLength(of recent: RecentMethod, startsCall bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2, bytes[0] == StandardEncoding.string, bytes[1] < 254 else { return nil }
        let count = Int(bytes[1])
        guard count == recent.utf8.count, bytes.count >= 2 + count else { return nil }
        let equal = recent.utf8.withUnsafeBytes {
            Self.sameBytes($0, UnsafeRawBufferPointer(rebasing: bytes[2..<2 + count]))
        }
        return equal ? count : nil
    }

    /// Whether `a` and `b` (of one length) hold the same bytes; eight at a time.
    private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= a.count {
            if a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                return false
            }
            index += 8
        }
        while index < a.count {
            if a[index] != b[index] { return false }
            index += 1
        }
        return true
    }

    /// The method name a call's bytes start with, read on its own: for naming a call whose
    /// arguments could not be decoded. `nil` when the bytes do not start with a string.
    package static func methodName(ofCall bytes: UnsafeRawBufferPointer) -> String? {
        var reader = StandardReader(bytes, maxDepth: 1, extensionBox: nil)
        guard (try? reader.readByte()) == StandardEncoding.string else { return nil }
        return try? reader.readString(at: 0)
    }

    static func readCall(_ reader: inout StandardReader) throws(CodecError) -> MethodCall {
        guard case .string(let method) = try reader.readValue() else {
            throw CodecError(.invalidMethodCall, "method name is not a string", offset: 0)
        }
        return MethodCall(method, arguments: try reader.readValue())
    }

    public func encodeSuccessEnvelope(_ result: StandardValue) throws(CodecError) -> [UInt8] {
        var writer = try written(segmenting: false) { (writer) throws(CodecError) in
            try Self.writeSuccess(result, into: &writer)
        }
        return writer.takeBytes()
    }

    /// A `Uint8List` of 64 KiB or more stays the value's own array, uncopied.
    package var standard: StandardMethodCodec? { self }

    package func encodeSuccessEnvelopeSegments(_ result: StandardValue) throws(CodecError) -> Payload {
        var writer = try written(segmenting: true) { (writer) throws(CodecError) in
            try Self.writeSuccess(result, into: &writer)
        }
        return writer.takeSegments()
    }

    /// The bytes of `encodeSuccessEnvelopeSegments`, written over `buffer`'s storage as
    /// `encodeMethodCall(_:reusing:)` writes a call: a lent payload in `buffer` when they make one
    /// array, else the payload in segments.
    package func encodeSuccessEnvelope(
        _ result: StandardValue, reusing buffer: consuming [UInt8]
    ) throws(CodecError) -> Payload {
        try written(reusing: consume buffer) { (writer) throws(CodecError) in
            try Self.writeSuccess(result, into: &writer)
        }
    }

    private static func writeSuccess(_ result: StandardValue, into writer: inout StandardWriter) throws(CodecError) {
        writer.writeByte(0)
        try writer.writeValue(result)
    }

    public func encodeErrorEnvelope(_ error: MethodError, includingStacktrace: Bool) throws(CodecError) -> [UInt8] {
        var writer = messageCodec.makeWriter()
        writer.writeByte(1)
        try writer.writeValue(.string(error.code))
        try writer.writeValue(error.message.map(StandardValue.string) ?? .null)
        try writer.writeValue(error.details)
        if includingStacktrace {
            try writer.writeValue(error.stacktrace.map(StandardValue.string) ?? .null)
        }
        return writer.takeBytes()
    }

    public func decodeEnvelope(_ bytes: [UInt8]) throws(CodecError) -> MethodEnvelope {
        guard !bytes.isEmpty else {
            throw CodecError(.invalidEnvelope, "envelope is empty", offset: 0)
        }
        return try messageCodec.read(bytes) { (reader: inout StandardReader) throws(CodecError) in
            try Self.readEnvelope(&reader)
        }
    }

    /// `decodeEnvelope` of bytes where they lie: the buffer a call lent for its reply.
    package func decodeEnvelope(in bytes: UnsafeRawBufferPointer) throws(CodecError) -> MethodEnvelope {
        guard !bytes.isEmpty else {
            throw CodecError(.invalidEnvelope, "envelope is empty", offset: 0)
        }
        return try messageCodec.read(raw: bytes) { (reader: inout StandardReader) throws(CodecError) in
            try Self.readEnvelope(&reader)
        }
    }

    static func readEnvelope(_ reader: inout StandardReader) throws(CodecError) -> MethodEnvelope {
        switch try reader.readByte() {
        case 0:
            return .success(try reader.readValue())
        case 1:
            return .error(try readError(&reader))
        case let flag:
            throw CodecError(.invalidEnvelope, "envelope flag is \(flag), expected 0 or 1", offset: 0)
        }
    }

    private static func readError(_ reader: inout StandardReader) throws(CodecError) -> MethodError {
        let codeOffset = reader.offset
        guard case .string(let code) = try reader.readValue() else {
            throw CodecError(.invalidEnvelope, "error code is not a string", offset: codeOffset)
        }
        let message = try readOptionalString(&reader, "error message")
        let details = try reader.readValue()
        var stacktrace: String?
        if !reader.isAtEnd {
            stacktrace = try readOptionalString(&reader, "error stacktrace")
        }
        return MethodError(code: code, message: message, details: details, stacktrace: stacktrace)
    }

    private static func readOptionalString(_ reader: inout StandardReader, _ what: String) throws(CodecError) -> String?
    {
        let start = reader.offset
        switch try reader.readValue() {
        case .null: return nil
        case .string(let text): return text
        default: throw CodecError(.invalidEnvelope, "\(what) is neither a string nor null", offset: start)
        }
    }
}
