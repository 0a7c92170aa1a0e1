/// Flutter's `StandardMessageCodec`, byte for byte: a type byte per value, expanding size prefixes,
/// alignment counted from the start of the message, little-endian.
///
/// Decoding is strict because the bytes come from another process: unknown types, truncation,
/// trailing bytes, invalid UTF-8, counts larger than the bytes left (rejected before allocating) and
/// nesting past `maxDepth` all throw a `CodecError` with the byte offset.
///
/// What decoding builds is bounded by the message's size: the values of an `n`-byte message may
/// take at most `decodingAllowance(forMessageOf: n)` bytes of memory (`allowanceBytesPerByte` × n
/// + `allowanceSlack`). Each list, map, heap string and typed list is charged its cost when its
/// size is read, before anything is allocated for it; past the allowance, decoding throws
/// `decodedTooLarge` (see `Protocol/codec.md` §6.5).
///
/// ```swift
/// let codec = StandardMessageCodec()
/// let bytes = try codec.encode(["key": "ShareKey"])   // 0d 01 07 03 6b6579 07 08 5368617265…
/// let value = try codec.decode(bytes)
/// ```
public struct StandardMessageCodec: MessageCodec {
    public typealias Message = StandardValue

    /// How deep lists, maps and custom values may nest before decoding is refused.
    public var maxDepth: Int
    /// Writes and reads custom types (tags 128...255).
    public var codecExtension: (any StandardCodecExtension)? {
        get { extensionBox?.value }
        set { extensionBox = newValue.map(CodecExtensionBox.init) }
    }
    /// `codecExtension`, held by reference for the readers and writers.
    private(set) var extensionBox: CodecExtensionBox?

    public init(extension codecExtension: (any StandardCodecExtension)? = nil, maxDepth: Int = 1_000) {
        extensionBox = codecExtension.map(CodecExtensionBox.init)
        self.maxDepth = maxDepth
    }

    /// Bytes of memory the decoded values may take per byte of message. A list of int32 values
    /// (5 bytes each on the wire, one 24-byte value each in memory) is the densest realistic data
    /// and fits; a long list of nulls or bools (1 byte each, 24 in memory) does not.
    public static let allowanceBytesPerByte = 6
    /// Bytes of memory every message may take on top of its per-byte allowance, so that small
    /// messages of any shape decode: any message up to 64 KiB fits whatever it holds, a list of
    /// 65,536 nulls (the size-form boundary vectors) included.
    public static let allowanceSlack = 2 << 20

    /// The most memory the values decoded from a message of `count` bytes may take.
    public static func decodingAllowance(forMessageOf count: Int) -> Int {
        allowanceBytesPerByte * count + allowanceSlack
    }

    public func encode(_ message: StandardValue) throws(CodecError) -> [UInt8] {
        var writer = makeWriter()
        try writer.writeValue(message)
        return writer.takeBytes()
    }

    /// Zero bytes decode as null, as every Flutter reader does for an absent message.
    public func decode(_ bytes: [UInt8]) throws(CodecError) -> StandardValue {
        if bytes.isEmpty { return .null }
        return try read(bytes) { (reader: inout StandardReader) throws(CodecError) in
            try reader.readValue()
        }
    }

    func makeWriter(segmenting: Bool = false) -> StandardWriter {
        StandardWriter(reservingCapacity: 64, extensionBox: extensionBox, keepingLargeByteLists: segmenting)
    }

    /// A segmenting writer that writes over `buffer`'s storage; `buffer` is left empty until
    /// `StandardWriter.giveBackBuffer(to:)`.
    func makeWriter(reusing buffer: inout [UInt8]) -> StandardWriter {
        StandardWriter(reusing: &buffer, extensionBox: extensionBox)
    }

    /// Runs `body` on a reader over `bytes` and insists that it consumed every byte.
    func read<T>(_ bytes: [UInt8], _ body: (inout StandardReader) throws(CodecError) -> T) throws(CodecError) -> T {
        let result: Result<T, CodecError> = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in try read(raw: raw, body) }
        }
        return try result.get()
    }

    /// `read(raw:)` of a message received in two parts, `head` then `tail`: a `Uint8List` that is
    /// exactly `tail` is decoded as that array, uncopied. Anything else, every
    /// error included, is decided on the message joined into one array, so that the result is
    /// always the one `read(raw:)` gives for the whole message.
    func read<T>(
        head: UnsafeRawBufferPointer, tail: [UInt8],
        _ body: (inout StandardReader) throws(CodecError) -> T
    ) throws(CodecError) -> T {
        var reader = StandardReader(
            head, maxDepth: maxDepth, extensionBox: extensionBox,
            messageCount: head.count + tail.count)
        let kept = MessageTail(tail)
        reader.tail = kept
        let value = try? body(&reader)
        let atEnd = reader.isAtEnd
        // The reader's last use is above: the tail lives as long as the reader is valid.
        withExtendedLifetime(kept) {}
        if let value, atEnd { return value }
        var joined: [UInt8] = []
        joined.reserveCapacity(head.count + tail.count)
        joined.append(contentsOf: head)
        joined.append(contentsOf: tail)
        return try read(joined, body)
    }

    /// Runs `body` on a reader over `bytes` where they lie and insists that it consumed every byte.
    func read<T>(
        raw bytes: UnsafeRawBufferPointer,
        _ body: (inout StandardReader) throws(CodecError) -> T
    ) throws(CodecError) -> T {
        var reader = StandardReader(bytes, maxDepth: maxDepth, extensionBox: extensionBox)
        let value = try body(&reader)
        guard reader.isAtEnd else {
            throw CodecError(
                .trailingBytes, "\(reader.remaining) unexpected bytes after the value", offset: reader.offset)
        }
        return value
    }
}
