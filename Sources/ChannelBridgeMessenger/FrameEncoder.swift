/// Writes frames in the version 1 wire format, appending to a byte buffer so that many frames
/// can share one buffer (and one `write`).
///
/// ```swift
/// var out: [UInt8] = []
/// try FrameEncoder.encode(.request(id: 1, channel: "echo", payload: [0x2A]), into: &out)
/// try FrameEncoder.encode(.cancel(id: 1), into: &out)
/// ```
///
/// A frame that cannot be encoded — a channel name outside 1 to 65,535 UTF-8 bytes, a peer name
/// over 65,535 bytes, a total length that does not fit the u32 length field — is refused with
/// `MessengerError` (`invalidChannel`, `frameTooLarge`); nothing here traps on size.
public enum FrameEncoder {
    /// Bytes before the kind byte: the u32 length field.
    public static let lengthFieldSize = 4

    /// Appends `frame` to `buffer`.
    ///
    /// - Throws: `MessengerError` when the frame cannot be encoded; `buffer` is then unchanged.
    public static func encode(_ frame: Frame, into buffer: inout [UInt8]) throws(MessengerError) {
        try validate(frame)
        encodeValidated(frame, into: &buffer)
    }

    /// Returns `frame` as a fresh byte array.
    ///
    /// - Throws: `MessengerError` when the frame cannot be encoded.
    public static func encode(_ frame: Frame) throws(MessengerError) -> [UInt8] {
        try validate(frame)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(encodedLength(of: frame))
        encodeValidated(frame, into: &buffer)
        return buffer
    }

    /// The number of bytes `encode` writes for `frame`, length field included.
    public static func encodedLength(of frame: Frame) -> Int {
        lengthFieldSize + 1 + bodyLength(of: frame)
    }

    /// Checks that `frame` can be encoded.
    public static func validate(_ frame: Frame, extraPayloadLength: Int = 0) throws(MessengerError) {
        switch frame {
        case .request(_, let channel, _), .message(let channel, _):
            let count = channel.utf8.count
            guard count >= 1, count <= Int(UInt16.max) else {
                throw MessengerError(.invalidChannel, "a channel name must have 1 to 65,535 UTF-8 bytes, not \(count)",
                                     channel: channel)
            }
        case .hello(let hello):
            guard hello.peerName.utf8.count <= Int(UInt16.max) else {
                throw MessengerError(.frameTooLarge, "a HELLO peer name is limited to 65,535 UTF-8 bytes")
            }
            if let max = hello.maxFrameLength, max < Frame.Hello.minimumMaxFrameLength || max > Int(UInt32.max) {
                throw MessengerError(.frameTooLarge, "a HELLO maximum frame length must be 16 to \(UInt32.max), not \(max)")
            }
        default:
            break
        }
        let length = 1 + bodyLength(of: frame) + extraPayloadLength
        guard length <= Int(UInt32.max) else {
            throw MessengerError(.frameTooLarge, "a frame of \(length) bytes does not fit the u32 length field")
        }
    }

    /// Appends `frame`, which `validate` accepted (the messenger checks sizes before it writes).
    /// Nothing traps: a field that does not fit is cut, which a checked frame never needs.
    package static func encodeValidated(_ frame: Frame, into buffer: inout [UInt8]) {
        encodeHead(of: frame, into: &buffer)
        switch frame {
        case .request(_, _, let payload?), .message(_, let payload?), .reply(_, .bytes(let payload)):
            buffer.append(contentsOf: payload)
        default:
            break
        }
    }

    /// Appends everything of `frame` except the bytes of its payload (REQUEST, MESSAGE, and REPLY
    /// status 0), which the caller writes right after. The length field already counts them. This
    /// lets a transport send a large payload from its own array without copying it.
    ///
    /// `extraPayloadLength` counts payload bytes that are not in `frame` (whose payload is then
    /// empty): segments the caller writes after the head. The frame must have passed `validate`.
    package static func encodeHead(of frame: Frame, extraPayloadLength: Int = 0, into buffer: inout [UInt8]) {
        let bodyLength = bodyLength(of: frame) + extraPayloadLength
        let length = UInt32(truncatingIfNeeded: 1 + bodyLength)
        let kind = frame.kind.rawValue
        switch frame {
        case .request(let id, let channel, let payload):
            let nameLength = channel.utf8.count
            guard nameLength <= Int(UInt16.max) else { return encodeHeadFieldByField(frame, length, into: &buffer) }
            appendRequestHead(length: length, id: id, channel: channel, nameLength: nameLength, isNull: payload == nil,
                              into: &buffer)
        case .reply(let id, let result):
            appendReplyHead(length: length, id: id, status: result.status, into: &buffer)
            if case .failure(let diagnostic) = result { buffer.append(contentsOf: diagnostic.utf8) }
        case .message(let channel, let payload):
            let nameLength = channel.utf8.count
            guard nameLength <= Int(UInt16.max) else { return encodeHeadFieldByField(frame, length, into: &buffer) }
            appendFields(&buffer) { fields in
                fields.storeBytes(of: length.littleEndian, toByteOffset: 0, as: UInt32.self)
                fields[4] = kind
                fields.storeBytes(of: UInt16(nameLength).littleEndian, toByteOffset: 5, as: UInt16.self)
                return 7
            }
            buffer.append(contentsOf: channel.utf8)
            buffer.append(payload == nil ? Frame.nullPayloadFlag : 0)
        default:
            encodeHeadFieldByField(frame, length, into: &buffer)
        }
    }

    /// Appends a whole REPLY status 0 (bytes) whose payload is `payload`: the frame `encodeValidated`
    /// writes for `.reply(id:result: .bytes(payload))`, without the `Frame` and with its length
    /// counted once (issue 18). `encodedReplyLength(payloadCount:)` is its length.
    package static func appendReply(id: UInt32, payload: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
        let total = encodedReplyLength(payloadCount: payload.count)
        let length = UInt32(truncatingIfNeeded: total - 4)
        guard total <= composedFrameLimit else {
            appendReplyHead(length: length, id: id, status: 0, into: &buffer)
            buffer.append(contentsOf: payload.assumingMemoryBound(to: UInt8.self))
            return
        }
        appendComposed(total, into: &buffer) { frame in
            storeReplyHead(length: length, id: id, status: 0, into: frame)
            UnsafeMutableRawBufferPointer(rebasing: frame[10...]).copyMemory(from: payload)
        }
    }

    /// Appends a whole REQUEST with a payload (not null): the frame `encodeValidated` writes for
    /// `.request(id:channel:payload:)`, without the `Frame` and with its length counted once
    /// (issue 18). The channel name has 1 to 65,535 UTF-8 bytes (checked before, as `validate` does).
    package static func appendRequest(id: UInt32, channel: String, payload: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
        let nameLength = channel.utf8.count
        let length = UInt32(truncatingIfNeeded: 1 + 4 + 2 + nameLength + 1 + payload.count)
        if Int(length) + 4 <= composedFrameLimit {
            let composed: Void? = channel.utf8.withContiguousStorageIfAvailable { name in
                appendComposed(Int(length) + 4, into: &buffer) { frame in
                    storeRequestFields(length: length, id: id, nameLength: nameLength, into: frame)
                    UnsafeMutableRawBufferPointer(rebasing: frame[11...]).copyMemory(from: UnsafeRawBufferPointer(name))
                    frame[11 + nameLength] = 0   // payload flags: not null
                    UnsafeMutableRawBufferPointer(rebasing: frame[(12 + nameLength)...]).copyMemory(from: payload)
                }
            }
            if composed != nil { return }
        }
        appendRequestHead(length: length, id: id, channel: channel, nameLength: nameLength, isNull: false, into: &buffer)
        buffer.append(contentsOf: payload.assumingMemoryBound(to: UInt8.self))
    }

    /// A frame up to this many bytes (a small call or reply) is put together on the stack and
    /// appended with one copy: each append to the array costs its own generic call whatever the
    /// byte count, and a REQUEST took three of them (issue 18).
    static let composedFrameLimit = 256

    /// Appends the `count` bytes `compose` writes into a stack buffer, with one copy.
    @inline(__always)
    private static func appendComposed(_ count: Int, into buffer: inout [UInt8],
                                       _ compose: (UnsafeMutableRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: count, alignment: 8) { frame in
            compose(frame)
            buffer.append(contentsOf: UnsafeRawBufferPointer(frame).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// A REQUEST's length, kind, id, name length, name and payload flags.
    @inline(__always)
    private static func appendRequestHead(length: UInt32, id: UInt32, channel: String, nameLength: Int, isNull: Bool,
                                          into buffer: inout [UInt8]) {
        appendFields(&buffer) { fields in
            storeRequestFields(length: length, id: id, nameLength: nameLength, into: fields)
            return 11
        }
        buffer.append(contentsOf: channel.utf8)
        buffer.append(isNull ? Frame.nullPayloadFlag : 0)
    }

    /// A REPLY's length, kind, id and status.
    @inline(__always)
    private static func appendReplyHead(length: UInt32, id: UInt32, status: UInt8, into buffer: inout [UInt8]) {
        appendFields(&buffer) { fields in
            storeReplyHead(length: length, id: id, status: status, into: fields)
            return 10
        }
    }

    /// A REQUEST's fixed fields: length, kind, id and name length (11 bytes).
    @inline(__always)
    private static func storeRequestFields(length: UInt32, id: UInt32, nameLength: Int, into fields: UnsafeMutableRawBufferPointer) {
        fields.storeBytes(of: length.littleEndian, toByteOffset: 0, as: UInt32.self)
        fields[4] = Frame.Kind.request.rawValue
        fields.storeBytes(of: id.littleEndian, toByteOffset: 5, as: UInt32.self)
        fields.storeBytes(of: UInt16(truncatingIfNeeded: nameLength).littleEndian, toByteOffset: 9, as: UInt16.self)
    }

    /// A REPLY's head: length, kind, id and status (10 bytes).
    @inline(__always)
    private static func storeReplyHead(length: UInt32, id: UInt32, status: UInt8, into fields: UnsafeMutableRawBufferPointer) {
        fields.storeBytes(of: length.littleEndian, toByteOffset: 0, as: UInt32.self)
        fields[4] = Frame.Kind.reply.rawValue
        fields.storeBytes(of: id.littleEndian, toByteOffset: 5, as: UInt32.self)
        fields[9] = status
    }

    /// The length of the frame `appendRequest` writes.
    package static func encodedRequestLength(channel: String, payloadCount: Int) -> Int {
        4 + 1 + 4 + 2 + channel.utf8.count + 1 + payloadCount
    }

    /// The length of the frame `appendReply` writes for a payload of `payloadCount` bytes.
    package static func encodedReplyLength(payloadCount: Int) -> Int { 4 + 1 + 4 + 1 + payloadCount }

    /// Appends up to 16 bytes of fixed fields, which `write` stores and counts, in one copy: an
    /// append of a few bytes costs the same call whatever their number, and a frame's length,
    /// kind, id and name length used to take four of them (issue 18).
    @inline(__always)
    private static func appendFields(_ buffer: inout [UInt8], _ write: (UnsafeMutableRawBufferPointer) -> Int) {
        var fields: (UInt64, UInt64) = (0, 0)
        let count = withUnsafeMutableBytes(of: &fields, write)
        withUnsafeBytes(of: &fields) { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The head of the frames off the hot path (and of a name too long for its length field),
    /// field by field.
    private static func encodeHeadFieldByField(_ frame: Frame, _ length: UInt32, into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(length)
        buffer.append(frame.kind.rawValue)
        switch frame {
        case .hello(let hello):
            buffer.append(contentsOf: Frame.Hello.magic)
            buffer.appendLittleEndian(hello.version)
            let announces = hello.maxFrameLength != nil
            buffer.appendLittleEndian(hello.flags & ~Frame.Hello.maxFrameLengthFlag | (announces ? Frame.Hello.maxFrameLengthFlag : 0))
            buffer.append(hello.role.rawValue)
            appendShortString(hello.peerName, into: &buffer)
            if let max = hello.maxFrameLength { buffer.appendLittleEndian(UInt32(truncatingIfNeeded: max)) }
        case .request(let id, let channel, let payload):
            buffer.appendLittleEndian(id)
            appendShortString(channel, into: &buffer)
            buffer.append(payload == nil ? Frame.nullPayloadFlag : 0)
        case .reply(let id, let result):
            buffer.appendLittleEndian(id)
            buffer.append(result.status)
            if case .failure(let diagnostic) = result { buffer.append(contentsOf: diagnostic.utf8) }
        case .message(let channel, let payload):
            appendShortString(channel, into: &buffer)
            buffer.append(payload == nil ? Frame.nullPayloadFlag : 0)
        case .cancel(let id):
            buffer.appendLittleEndian(id)
        case .ping(let token), .pong(let token):
            buffer.appendLittleEndian(token)
        case .goodbye(let code, let reason):
            buffer.appendLittleEndian(code.rawValue)
            buffer.append(contentsOf: reason.utf8)
        }
    }

    /// The payload that `encodeHead(of:into:)` leaves out, if any.
    package static func detachedPayload(of frame: Frame) -> [UInt8]? {
        switch frame {
        case .request(_, _, let payload?), .message(_, let payload?), .reply(_, .bytes(let payload)):
            payload
        default:
            nil
        }
    }

    /// The body length (everything after the kind byte).
    static func bodyLength(of frame: Frame) -> Int {
        switch frame {
        case .hello(let hello):
            4 + 2 + 2 + 1 + 2 + hello.peerName.utf8.count + (hello.maxFrameLength == nil ? 0 : 4)
        case .request(_, let channel, let payload):
            4 + 2 + channel.utf8.count + 1 + (payload?.count ?? 0)
        case .reply(_, let result):
            switch result {
            case .bytes(let payload): 4 + 1 + payload.count
            case .null: 4 + 1
            case .failure(let diagnostic): 4 + 1 + diagnostic.utf8.count
            }
        case .message(let channel, let payload):
            2 + channel.utf8.count + 1 + (payload?.count ?? 0)
        case .cancel:
            4
        case .ping, .pong:
            8
        case .goodbye(_, let reason):
            2 + reason.utf8.count
        }
    }

    private static func appendShortString(_ string: String, into buffer: inout [UInt8]) {
        let count = string.utf8.count
        guard count <= Int(UInt16.max) else {
            // Refused by `validate`; cut rather than trap, so that the frame stays well-formed.
            buffer.appendLittleEndian(UInt16.max)
            buffer.append(contentsOf: string.utf8.prefix(Int(UInt16.max)))
            return
        }
        buffer.appendLittleEndian(UInt16(count))
        buffer.append(contentsOf: string.utf8)
    }
}
