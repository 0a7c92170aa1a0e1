public import ChannelBridgeCodec
public import Foundation

/// Flutter's Standard method codec, as the iOS embedder has it (`FlutterStandardMethodCodec`): a
/// call is the method name followed by the arguments; a success envelope is `00` and the result;
/// an error envelope is `01`, the code, the message and the details.
///
/// ```swift
/// let codec = FlutterStandardMethodCodec.sharedInstance()
/// let bytes = codec.encode(FlutterMethodCall(methodName: "exit", arguments: nil))   // 07 04 65786974 00
/// ```
///
/// Decoding an error envelope also accepts the optional fourth value (a stacktrace string or
/// null) that Flutter's Android side and ChannelBridge's own codec can write, and drops it:
/// `FlutterError` has nowhere to keep it. The iOS decoder would refuse such an envelope.
// @unchecked: its one stored property is a `let`; the reader/writer pair is only asked for a new reader or writer per message, as on iOS.
open class FlutterStandardMethodCodec: NSObject, FlutterMethodCodec, CheckedMethodCodec, @unchecked Sendable {
    // @unchecked: immutable; readers and writers are made per message and never shared.
    public let readerWriter: FlutterStandardReaderWriter

    public required init(readerWriter: FlutterStandardReaderWriter) {
        self.readerWriter = readerWriter
        super.init()
    }

    open class func sharedInstance() -> Self {
        SharedCodecs.instance(of: self) { self.init(readerWriter: FlutterStandardReaderWriter()) }
    }

    open func encode(_ methodCall: FlutterMethodCall) -> Data {
        written { writer in
            writer.writeValue(methodCall.method)
            writer.writeValue(methodCall.arguments as Any)
        }.data
    }

    open func encodeSuccessEnvelope(_ result: Any?) -> Data {
        written { writer in
            writer.writeByte(0)
            writer.writeValue(result as Any)
        }.data
    }

    open func encodeErrorEnvelope(_ error: FlutterError) -> Data {
        written { writer in
            writer.writeByte(1)
            writer.writeValue(error.code)
            writer.writeValue(error.message as Any)
            writer.writeValue(error.details as Any)
        }.data
    }

    /// A malformed call is logged and comes back as a call of the method "" with no arguments
    /// (see `checkedDecodeMethodCall(_:)` for the error instead).
    open func decodeMethodCall(_ methodCall: Data) -> FlutterMethodCall {
        do {
            return try checkedDecodeMethodCall(methodCall)
        } catch {
            FlutterLog.error("Corrupted standard method call: \(error)")
            return FlutterMethodCall(methodName: "", arguments: nil)
        }
    }

    /// A malformed envelope is logged and gives `nil` (see `checkedDecodeEnvelope(_:)`).
    open func decodeEnvelope(_ envelope: Data) -> Any? {
        do {
            return try checkedDecodeEnvelope(envelope)
        } catch {
            FlutterLog.error("Corrupted standard envelope: \(error)")
            return nil
        }
    }

    public func checkedEncode(_ methodCall: FlutterMethodCall) throws(CodecError) -> Data {
        try written { writer in
            writer.writeValue(methodCall.method)
            writer.writeValue(methodCall.arguments as Any)
        }.checked()
    }

    public func checkedEncodeSuccessEnvelope(_ result: Any?) throws(CodecError) -> Data {
        try written { writer in
            writer.writeByte(0)
            writer.writeValue(result as Any)
        }.checked()
    }

    public func checkedEncodeErrorEnvelope(_ error: FlutterError) throws(CodecError) -> Data {
        try written { writer in
            writer.writeByte(1)
            writer.writeValue(error.code)
            writer.writeValue(error.message as Any)
            writer.writeValue(error.details as Any)
        }.checked()
    }

    /// Throws `invalidMethodCall` for an empty message or a name that is not a string, or what
    /// the reader found wrong.
    public func checkedDecodeMethodCall(_ methodCall: Data) throws(CodecError) -> FlutterMethodCall {
        guard !methodCall.isEmpty else { throw CodecError(.invalidMethodCall, "method call is empty", offset: 0) }
        let reader = readerWriter.reader(with: methodCall)
        let name = reader.readValue()
        let arguments = reader.readValue()
        try reader.checkComplete()
        guard let method = name as? String else {
            throw CodecError(.invalidMethodCall, "method name is not a string", offset: 0)
        }
        return FlutterMethodCall(methodName: method, arguments: arguments)
    }

    /// Throws `invalidEnvelope` for an empty envelope, a flag other than 0 or 1, or a code,
    /// message or stacktrace of the wrong type, or what the reader found wrong.
    public func checkedDecodeEnvelope(_ envelope: Data) throws(CodecError) -> Any? {
        guard !envelope.isEmpty else { throw CodecError(.invalidEnvelope, "envelope is empty", offset: 0) }
        let reader = readerWriter.reader(with: envelope)
        switch reader.readByte() {
        case 0:
            let result = reader.readValue()
            try reader.checkComplete()
            return result
        case 1:
            let code = reader.readValue()
            let message = reader.readValue()
            let details = reader.readValue()
            var stacktrace: Any? = nil
            if reader.failure == nil, reader.hasMore() { stacktrace = reader.readValue() }
            try reader.checkComplete()
            guard let code = code as? String else {
                throw CodecError(.invalidEnvelope, "error code is not a string", offset: 1)
            }
            guard message == nil || message is String else {
                throw CodecError(.invalidEnvelope, "error message is neither a string nor null")
            }
            guard stacktrace == nil || stacktrace is String else {
                throw CodecError(.invalidEnvelope, "error stacktrace is neither a string nor null")
            }
            return FlutterError(code: code, message: message as? String, details: details)
        case let flag:
            throw CodecError(.invalidEnvelope, "envelope flag is \(flag), expected 0 or 1", offset: 0)
        }
    }

    private func written(_ body: (FlutterStandardWriter) -> Void) -> Written {
        let data = NSMutableData(capacity: 32) ?? NSMutableData()
        let writer = readerWriter.writer(with: data)
        body(writer)
        return Written(data: data as Data, failure: writer.failure)
    }
}

/// What a writer produced: its bytes and the first value it could not write.
struct Written {
    var data: Data
    var failure: CodecError?

    func checked() throws(CodecError) -> Data {
        if let failure { throw failure }
        return data
    }
}
