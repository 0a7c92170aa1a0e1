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
package enum FrameEncoder {
    /// Bytes before the kind byte: the u32 length field.
    package static let lengthFieldSize = 4

    /// Appends `frame` to `buffer`.
    ///
    /// - Throws: `MessengerError` when the frame cannot be encoded; `buffer` is then unchanged.
    package static func encode(_ frame: Frame, into buffer: inout [UInt8]) throws(MessengerError) {
        try validate(frame)
        encodeValidated(frame, into: &buffer)
    }

    /// Returns `frame` as a fresh byte array.
    ///
    /// - Throws: `MessengerError` when the frame cannot be encoded.
    package static func encode(_ frame: Frame) throws(MessengerError) -> [UInt8] {
        try validate(frame)
        var buffer: [UInt8] = []  // `append` gives it the frame's own array: nothing to reserve
        encodeValidated(frame, into: &buffer)
        return buffer
    }

    /// The number of bytes `encode` writes for `frame`, length field included.
    package static func encodedLength(of frame: Frame) -> Int {
        lengthFieldSize + 1 + bodyLength(of: frame)
    }

    /// Checks that `frame` can be encoded.
    package static func validate(_ frame: Frame, extraPayloadLength: Int = 0) throws(MessengerError) {
        switch frame {
        case .request(_, let channel, _), .message(let channel, _):
            let count = channel.utf8.count
            guard count >= 1, count <= Int(UInt16.max) else {
                throw MessengerError(
                    .invalidChannel, "a channel name must have 1 to 65,535 UTF-8 bytes, not \(count)",
                    channel: channel)
            }
        case .hello(let hello):
            guard hello.peerName.utf8.count <= Int(UInt16.max) else {
                throw MessengerError(.frameTooLarge, "a HELLO peer name is limited to 65,535 UTF-8 bytes")
            }
            if let max = hello.maxFrameLength, max < Frame.Hello.minimumMaxFrameLength || max > Int(UInt32.max) {
                throw MessengerError(
                    .frameTooLarge, "a HELLO maximum frame length must be 16 to \(UInt32.max), not \(max)")
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
        append(encodedLength(of: frame), to: &buffer) { storeValidated(frame, into: $0) }
    }

    /// Appends `count` bytes, all of which `store` writes.
    ///
    /// The bytes are written into a fresh array, which becomes `buffer` when that is empty (the
    /// usual case) and is otherwise appended in one copy. Zero-filling `buffer` first and writing in
    /// place went through `append(contentsOf: repeatElement(0, count:))`, a loop over every byte in
    /// an unoptimised build: 7 s for a 16 MiB frame in the debug test suite.
    private static func append(_ count: Int, to buffer: inout [UInt8], _ store: (UnsafeMutableRawBufferPointer) -> Void)
    {
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { region, initialized in
            store(UnsafeMutableRawBufferPointer(region))
            initialized = count
        }
        if buffer.isEmpty { buffer = bytes } else { buffer.append(contentsOf: bytes) }
    }

    /// The length of the frame `storeRequest` writes.
    package static func encodedRequestLength(channel: String, payloadCount: Int) -> Int {
        4 + 1 + 4 + 2 + channel.utf8.count + 1 + payloadCount
    }

    /// The length of the frame `storeReply` writes for a payload of `payloadCount` bytes.
    package static func encodedReplyLength(payloadCount: Int) -> Int { 4 + 1 + 4 + 1 + payloadCount }

    /// The bytes `storeHead(of:extraPayloadLength:into:)` writes: all but the payload's.
    static func headLength(of frame: Frame) -> Int {
        encodedLength(of: frame) - (detachedPayload(of: frame)?.count ?? 0)
    }

    /// The payload that `storeHead(of:extraPayloadLength:into:)` leaves out, if any.
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
}
