public import ChannelBridgeCodec
public import Foundation

/// Flutter's Standard message codec, as the iOS embedder has it (`FlutterStandardMessageCodec`),
/// byte for byte: see `FlutterStandardWriter` for which type byte a value gets and
/// `FlutterStandardReader` for what comes back.
///
/// ```swift
/// let codec = FlutterStandardMessageCodec.sharedInstance()
/// let bytes = codec.encode(["key": "ShareKey"])          // 0d 01 07 03 6b6579 07 08 5368617265…
/// let value = codec.decode(bytes) as? [String: Any]
/// ```
///
/// Pigeon's generated code subclasses it with a reader/writer pair for its custom types:
/// `FlutterStandardMessageCodec(readerWriter: MessagesPigeonCodecReaderWriter())`.
// @unchecked: its one stored property is a `let`; the reader/writer pair is only asked for a new reader or writer per message, as on iOS.
open class FlutterStandardMessageCodec: NSObject, FlutterMessageCodec, CheckedMessageCodec, @unchecked Sendable {
    // @unchecked: immutable; readers and writers are made per message and never shared.
    public let readerWriter: FlutterStandardReaderWriter

    public required init(readerWriter: FlutterStandardReaderWriter) {
        self.readerWriter = readerWriter
        super.init()
    }

    /// A shared codec of this class with the plain reader and writer.
    open class func sharedInstance() -> Self {
        SharedCodecs.instance(of: self) { self.init(readerWriter: FlutterStandardReaderWriter()) }
    }

    /// `nil` for a `nil` message; an unsupported value is logged and left out (see
    /// `checkedEncode(_:)` for the error instead).
    open func encode(_ message: Any?) -> Data? {
        guard let message else { return nil }
        let data = NSMutableData(capacity: 32) ?? NSMutableData()
        readerWriter.writer(with: data).writeValue(message)
        return data as Data
    }

    /// `nil` for `nil` or zero bytes; malformed bytes are logged and give `nil` (see
    /// `checkedDecode(_:)` for the error instead).
    open func decode(_ message: Data?) -> Any? {
        do {
            return try checkedDecode(message)
        } catch {
            FlutterLog.error("Corrupted standard message: \(error)")
            return nil
        }
    }

    /// `encode(_:)` that throws `unencodable` naming the first value it could not write.
    public func checkedEncode(_ message: Any?) throws(CodecError) -> Data? {
        guard let message else { return nil }
        let data = NSMutableData(capacity: 32) ?? NSMutableData()
        let writer = readerWriter.writer(with: data)
        writer.writeValue(message)
        if let failure = writer.failure { throw failure }
        return data as Data
    }

    /// `decode(_:)` that throws what is wrong with the bytes, with its offset: an unknown type,
    /// truncation, invalid UTF-8, a count larger than the bytes left, nesting over
    /// `FlutterStandardReader.maximumDepth`, or bytes after the value.
    public func checkedDecode(_ message: Data?) throws(CodecError) -> Any? {
        guard let message, !message.isEmpty else { return nil }
        let reader = readerWriter.reader(with: message)
        let value = reader.readValue()
        try reader.checkComplete()
        return value
    }
}

extension FlutterStandardReader {
    /// Throws the reader's first problem, or `trailingBytes` when bytes are left.
    func checkComplete() throws(CodecError) {
        if let failure { throw failure }
        if hasMore() { throw CodecError(.trailingBytes, "unexpected bytes after the value") }
    }
}
