/// Writes frames in the version 1 wire format, appending to a byte buffer so that many frames
/// can share one buffer (and one `write`).
///
/// ```swift
/// var out: [UInt8] = []
/// FrameEncoder.encode(.request(id: 1, channel: "echo", payload: [0x2A]), into: &out)
/// FrameEncoder.encode(.cancel(id: 1), into: &out)
/// ```
///
/// The frame must be encodable: a channel name of 1 to 65,535 UTF-8 bytes, a peer name of at most
/// 65,535 bytes, and a total length that fits the u32 length field. `MessengerConnection` checks
/// these before it encodes; breaking them here is a programming error and traps.
public enum FrameEncoder {
    /// Bytes before the kind byte: the u32 length field.
    public static let lengthFieldSize = 4

    /// Appends `frame` to `buffer`.
    public static func encode(_ frame: Frame, into buffer: inout [UInt8]) {
        encodeHead(of: frame, into: &buffer)
        switch frame {
        case .request(_, _, let payload?), .message(_, let payload?), .reply(_, .bytes(let payload)):
            buffer.append(contentsOf: payload)
        default:
            break
        }
    }

    /// Returns `frame` as a fresh byte array.
    public static func encode(_ frame: Frame) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(encodedLength(of: frame))
        encode(frame, into: &buffer)
        return buffer
    }

    /// The number of bytes `encode` writes for `frame`, length field included.
    public static func encodedLength(of frame: Frame) -> Int {
        lengthFieldSize + 1 + bodyLength(of: frame)
    }

    /// Appends everything of `frame` except the bytes of its payload (REQUEST, MESSAGE, and REPLY
    /// status 0), which the caller writes right after. The length field already counts them. This
    /// lets a transport send a large payload from its own array without copying it.
    ///
    /// `extraPayloadLength` counts payload bytes that are not in `frame` (whose payload is then
    /// empty): segments the caller writes after the head.
    package static func encodeHead(of frame: Frame, extraPayloadLength: Int = 0, into buffer: inout [UInt8]) {
        let bodyLength = bodyLength(of: frame) + extraPayloadLength
        precondition(bodyLength < Int(UInt32.max), "frame too long for the u32 length field")
        buffer.appendLittleEndian(UInt32(1 + bodyLength))
        buffer.append(frame.kind.rawValue)
        switch frame {
        case .hello(let hello):
            buffer.append(contentsOf: Frame.Hello.magic)
            buffer.appendLittleEndian(hello.version)
            buffer.appendLittleEndian(hello.flags)
            buffer.append(hello.role.rawValue)
            appendShortString(hello.peerName, into: &buffer)
        case .request(let id, let channel, let payload):
            buffer.appendLittleEndian(id)
            appendChannel(channel, into: &buffer)
            buffer.append(payload == nil ? Frame.nullPayloadFlag : 0)
        case .reply(let id, let result):
            buffer.appendLittleEndian(id)
            buffer.append(result.status)
            if case .failure(let diagnostic) = result { buffer.append(contentsOf: diagnostic.utf8) }
        case .message(let channel, let payload):
            appendChannel(channel, into: &buffer)
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
            4 + 2 + 2 + 1 + 2 + hello.peerName.utf8.count
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

    private static func appendChannel(_ channel: String, into buffer: inout [UInt8]) {
        precondition(!channel.isEmpty, "a channel name must not be empty")
        appendShortString(channel, into: &buffer)
    }

    private static func appendShortString(_ string: String, into buffer: inout [UInt8]) {
        let count = string.utf8.count
        precondition(count <= Int(UInt16.max), "a name is limited to 65,535 UTF-8 bytes")
        buffer.appendLittleEndian(UInt16(count))
        buffer.append(contentsOf: string.utf8)
    }
}
