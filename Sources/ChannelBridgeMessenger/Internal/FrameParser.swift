/// The fixed fields of a frame that carries a payload, decoded before its payload.
enum PayloadHead: Sendable {
    case request(id: UInt32, channel: String, isNull: Bool)
    case message(channel: String, isNull: Bool)
    case reply(id: UInt32, status: UInt8)

    func frame(payload: [UInt8]) -> Frame {
        switch self {
        case .request(let id, let channel, let isNull):
            .request(id: id, channel: channel, payload: isNull ? nil : payload)
        case .message(let channel, let isNull):
            .message(channel: channel, payload: isNull ? nil : payload)
        case .reply(let id, let status):
            switch status {
            case 0: .reply(id: id, result: .bytes(payload))
            case 1: .reply(id: id, result: .null)
            default: .reply(id: id, result: .failure(String(decoding: payload, as: UTF8.self)))
            }
        }
    }
}

/// Decodes frame bodies and applies every framing rule from the design's edge rules.
enum FrameParser {
    static func unknownKind(_ kind: UInt8) -> ProtocolViolation {
        ProtocolViolation(.unknownKind, "unknown frame kind 0x\(hex(kind))")
    }

    static func shortBody(_ kind: Frame.Kind, _ bodyLength: Int) -> ProtocolViolation {
        ProtocolViolation(.shortBody, "\(kind) body of \(bodyLength) bytes is too short")
    }

    /// Decodes a complete body.
    static func parse(
        kind rawKind: UInt8, body: UnsafeRawBufferPointer,
        names: inout ChannelNameCache
    ) throws(ProtocolViolation) -> Frame {
        guard let kind = Frame.Kind(rawValue: rawKind) else { throw unknownKind(rawKind) }
        switch kind {
        case .request, .message, .reply:
            guard
                let (head, headLength) = try parseHead(
                    kind: kind, bytes: body, bodyLength: body.count,
                    names: &names)
            else {
                throw shortBody(kind, body.count)
            }
            return head.frame(payload: Array(UnsafeRawBufferPointer(rebasing: body[headLength...])))
        case .hello:
            return .hello(try parseHello(body))
        case .cancel:
            return .cancel(id: try fixed(kind, body, as: UInt32.self))
        case .ping:
            return .ping(token: try fixed(kind, body, as: UInt64.self))
        case .pong:
            return .pong(token: try fixed(kind, body, as: UInt64.self))
        case .goodbye:
            var reader = ByteReader(body)
            guard let code = try? reader.read(UInt16.self) else { throw shortBody(kind, body.count) }
            return .goodbye(
                code: GoodbyeCode(rawValue: code), reason: String(decoding: reader.readRest(), as: UTF8.self))
        }
    }

    /// Decodes the fixed fields of a REQUEST, MESSAGE or REPLY from the first bytes of a body of
    /// `bodyLength` bytes. Returns `nil` when `bytes` is a prefix too short to hold them.
    static func parseHead(
        kind: Frame.Kind, bytes: UnsafeRawBufferPointer, bodyLength: Int,
        names: inout ChannelNameCache
    ) throws(ProtocolViolation) -> (PayloadHead, Int)? {
        var reader = ByteReader(bytes)
        do {
            switch kind {
            case .request:
                let id = try reader.read(UInt32.self)
                guard id != 0 else { throw ProtocolViolation(.zeroRequestID, "REQUEST id 0 is reserved") }
                let channel = try readChannel(&reader, names: &names)
                let isNull = try readPayloadFlags(&reader, payloadLength: bodyLength - reader.offset - 1)
                return (.request(id: id, channel: channel, isNull: isNull), reader.offset)
            case .message:
                let channel = try readChannel(&reader, names: &names)
                let isNull = try readPayloadFlags(&reader, payloadLength: bodyLength - reader.offset - 1)
                return (.message(channel: channel, isNull: isNull), reader.offset)
            case .reply:
                let id = try reader.read(UInt32.self)
                let status = try reader.read(UInt8.self)
                guard status <= 2 else {
                    throw ProtocolViolation(.unknownReplyStatus, "REPLY \(id) has unknown status \(status)")
                }
                if status == 1, bodyLength > reader.offset {
                    throw ProtocolViolation(
                        .nullReplyWithBytes,
                        "REPLY \(id) is null (status 1) but carries \(bodyLength - reader.offset) bytes")
                }
                return (.reply(id: id, status: status), reader.offset)
            default:
                preconditionFailure("\(kind) has no payload head")
            }
        } catch let error as ProtocolViolation {
            throw error
        } catch {
            // Ran out of bytes: fatal only if the whole body is here.
            if bytes.count >= bodyLength { throw shortBody(kind, bodyLength) }
            return nil
        }
    }

    private static func readChannel(_ reader: inout ByteReader, names: inout ChannelNameCache) throws -> String {
        let count = Int(try reader.read(UInt16.self))
        guard count > 0 else { throw ProtocolViolation(.emptyChannel, "channel name of length 0") }
        let bytes = try reader.readSlice(count)
        if let known = names.name(for: bytes) { return known }
        guard let channel = String(validating: bytes, as: UTF8.self) else {
            throw ProtocolViolation(.invalidUTF8, "channel name is not valid UTF-8")
        }
        names.remember(channel, bytes: bytes)
        return channel
    }

    private static func readPayloadFlags(_ reader: inout ByteReader, payloadLength: Int) throws -> Bool {
        let flags = try reader.read(UInt8.self)
        guard flags & ~Frame.nullPayloadFlag == 0 else {
            throw ProtocolViolation(.unknownPayloadFlags, "unknown payloadFlags bits 0x\(hex(flags))")
        }
        let isNull = flags & Frame.nullPayloadFlag != 0
        if isNull, payloadLength > 0 {
            throw ProtocolViolation(.nullPayloadWithBytes, "null payload flag with \(payloadLength) payload bytes")
        }
        return isNull
    }

    private static func parseHello(_ body: UnsafeRawBufferPointer) throws(ProtocolViolation) -> Frame.Hello {
        var reader = ByteReader(body)
        do {
            let magic = try reader.readSlice(4)
            guard magic.elementsEqual(Frame.Hello.magic) else {
                throw ProtocolViolation(.badMagic, "HELLO does not start with CHBR")
            }
            // The version comes first: a later version may lay out the rest differently.
            let version = try reader.read(UInt16.self)
            guard version == Frame.Hello.currentVersion else {
                throw ProtocolViolation(
                    .unsupportedVersion,
                    "protocol version \(version) is not supported (this side speaks 1)")
            }
            let flags = try reader.read(UInt16.self)
            let rawRole = try reader.read(UInt8.self)
            guard let role = PeerRole(rawValue: rawRole) else {
                throw ProtocolViolation(.unknownRole, "HELLO role \(rawRole) is neither client (0) nor host (1)")
            }
            let count = Int(try reader.read(UInt16.self))
            guard let name = String(validating: try reader.readSlice(count), as: UTF8.self) else {
                throw ProtocolViolation(.invalidUTF8, "HELLO peer name is not valid UTF-8")
            }
            var maxFrameLength: Int?
            if flags & Frame.Hello.maxFrameLengthFlag != 0 {
                let value = Int(try reader.read(UInt32.self))
                guard value >= Frame.Hello.minimumMaxFrameLength else {
                    throw ProtocolViolation(
                        .badMaxFrameLength,
                        "HELLO announces a maximum frame length of \(value), below \(Frame.Hello.minimumMaxFrameLength)"
                    )
                }
                maxFrameLength = value
            }
            // Bytes after the known fields are left for extensions announced by other flag bits.
            return Frame.Hello(
                version: version, flags: flags, role: role, peerName: name, maxFrameLength: maxFrameLength)
        } catch let error as ProtocolViolation {
            throw error
        } catch {
            throw shortBody(.hello, body.count)
        }
    }

    private static func fixed<T: FixedWidthInteger>(
        _ kind: Frame.Kind, _ body: UnsafeRawBufferPointer,
        as _: T.Type
    ) throws(ProtocolViolation) -> T {
        let size = MemoryLayout<T>.size
        guard body.count >= size else { throw shortBody(kind, body.count) }
        guard body.count == size else {
            throw ProtocolViolation(.trailingBytes, "\(kind) body has \(body.count - size) bytes after its fields")
        }
        return T(littleEndian: body.loadUnaligned(as: T.self))
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
