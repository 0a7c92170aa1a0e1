extension FrameEncoder {
    /// Writes `frame`, which `validate` accepted, into `target`: exactly `encodedLength(of:)`
    /// bytes, the memory a transport gives `write(frameOfLength:followedBy:flush:_:)`'s closure.
    package static func storeValidated(_ frame: Frame, into target: UnsafeMutableRawBufferPointer) {
        var writer = ByteWriter(target)
        writeHead(of: frame, extraPayloadLength: 0, to: &writer)
        if let payload = detachedPayload(of: frame) { payload.withUnsafeBytes { writer.write($0) } }
        writer.zeroRest()
    }

    /// Writes everything of `frame` except the bytes of its payload (REQUEST, MESSAGE, and REPLY
    /// status 0), which go after it in arrays of their own: `headLength(of:)` bytes. The length
    /// field already counts the payload, and `extraPayloadLength` more bytes that are not in
    /// `frame` (whose payload is then empty). The frame must have passed `validate`.
    static func storeHead(of frame: Frame, extraPayloadLength: Int, into target: UnsafeMutableRawBufferPointer) {
        var writer = ByteWriter(target)
        writeHead(of: frame, extraPayloadLength: extraPayloadLength, to: &writer)
        writer.zeroRest()
    }

    /// Writes a whole REPLY status 0 (bytes) whose payload is `payload` into `target`, which has
    /// `encodedReplyLength(payloadCount:)` bytes: the frame `storeValidated` writes for
    /// `.reply(id:result: .bytes(payload))`, without the `Frame`.
    package static func storeReply(
        id: UInt32, payload: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer
    ) {
        precondition(target.count == 10 + payload.count, "a REPLY's memory is not the frame's length")
        guard let frame = target.baseAddress else { return }
        // Stored field by field with one check, for the few bytes of a small reply.
        frame.storeBytes(of: UInt32(truncatingIfNeeded: 6 + payload.count).littleEndian, as: UInt32.self)
        frame.storeBytes(of: Frame.Kind.reply.rawValue, toByteOffset: 4, as: UInt8.self)
        frame.storeBytes(of: id.littleEndian, toByteOffset: 5, as: UInt32.self)
        frame.storeBytes(of: 0, toByteOffset: 9, as: UInt8.self)
        if let bytes = payload.baseAddress { (frame + 10).copyMemory(from: bytes, byteCount: payload.count) }
    }

    /// Writes a whole REQUEST with a payload (not null) into `target`, which has
    /// `encodedRequestLength(channel:payloadCount:)` bytes: the frame `storeValidated` writes for
    /// `.request(id:channel:payload:)`, without the `Frame`. The channel name has 1 to
    /// 65,535 UTF-8 bytes (checked before, as `validate` does).
    package static func storeRequest(
        id: UInt32, channel: String, payload: UnsafeRawBufferPointer,
        into target: UnsafeMutableRawBufferPointer
    ) {
        let stored: Void? = channel.utf8.withContiguousStorageIfAvailable { name in
            let nameLength = name.count
            precondition(
                nameLength <= Int(UInt16.max) && target.count == 12 + nameLength + payload.count,
                "a REQUEST's memory is not the frame's length")
            guard let frame = target.baseAddress else { return }
            frame.storeBytes(
                of: UInt32(truncatingIfNeeded: target.count - lengthFieldSize).littleEndian, as: UInt32.self)
            frame.storeBytes(of: Frame.Kind.request.rawValue, toByteOffset: 4, as: UInt8.self)
            frame.storeBytes(of: id.littleEndian, toByteOffset: 5, as: UInt32.self)
            frame.storeBytes(of: UInt16(truncatingIfNeeded: nameLength).littleEndian, toByteOffset: 9, as: UInt16.self)
            if let bytes = name.baseAddress { (frame + 11).copyMemory(from: bytes, byteCount: nameLength) }
            frame.storeBytes(of: 0, toByteOffset: 11 + nameLength, as: UInt8.self)  // payload flags: not null
            if let bytes = payload.baseAddress {
                (frame + 12 + nameLength).copyMemory(from: bytes, byteCount: payload.count)
            }
        }
        guard stored == nil else { return }
        // A name that does not lend its UTF-8 (bridged): field by field.
        var writer = ByteWriter(target)
        writer.writeLittleEndian(UInt32(truncatingIfNeeded: target.count - lengthFieldSize))
        writer.write(Frame.Kind.request.rawValue)
        writer.writeLittleEndian(id)
        writer.writeShortString(channel)
        writer.write(0)
        writer.write(payload)
        writer.zeroRest()
    }

    /// Everything of `frame` but its payload's bytes, the length field counting them and
    /// `extraPayloadLength` more.
    private static func writeHead(of frame: Frame, extraPayloadLength: Int, to writer: inout ByteWriter) {
        writer.writeLittleEndian(UInt32(truncatingIfNeeded: 1 + bodyLength(of: frame) + extraPayloadLength))
        writer.write(frame.kind.rawValue)
        switch frame {
        case .hello(let hello):
            Frame.Hello.magic.withUnsafeBytes { writer.write($0) }
            writer.writeLittleEndian(hello.version)
            let announces = hello.maxFrameLength != nil
            writer.writeLittleEndian(
                hello.flags & ~Frame.Hello.maxFrameLengthFlag | (announces ? Frame.Hello.maxFrameLengthFlag : 0))
            writer.write(hello.role.rawValue)
            writer.writeShortString(hello.peerName)
            if let max = hello.maxFrameLength { writer.writeLittleEndian(UInt32(truncatingIfNeeded: max)) }
        case .request(let id, let channel, let payload):
            writer.writeLittleEndian(id)
            writer.writeShortString(channel)
            writer.write(payload == nil ? Frame.nullPayloadFlag : 0)
        case .reply(let id, let result):
            writer.writeLittleEndian(id)
            writer.write(result.status)
            if case .failure(let diagnostic) = result { writer.write(utf8: diagnostic) }
        case .message(let channel, let payload):
            writer.writeShortString(channel)
            writer.write(payload == nil ? Frame.nullPayloadFlag : 0)
        case .cancel(let id):
            writer.writeLittleEndian(id)
        case .ping(let token), .pong(let token):
            writer.writeLittleEndian(token)
        case .goodbye(let code, let reason):
            writer.writeLittleEndian(code.rawValue)
            writer.write(utf8: reason)
        }
    }
}
