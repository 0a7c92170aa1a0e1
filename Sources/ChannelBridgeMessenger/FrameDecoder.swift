/// Turns a byte stream into frames, accepting input split at any byte.
///
/// ```swift
/// var decoder = FrameDecoder(maxFrameLength: 1 << 20)
/// decoder.append(bytesFromTheSocket)
/// while let frame = try decoder.next() { handle(frame) }
/// ```
///
/// The length field is checked against `maxFrameLength` as soon as its four bytes are in, before
/// any body byte is looked at. A body of `directPayloadThreshold` bytes or more is decoded as soon
/// as its fixed fields are in; its payload array is then allocated once and filled in place, so a
/// transport using `withUnsafeMutableInputBuffer(minimumCapacity:_:)` reads a large payload
/// straight into the array the frame will carry. After `next()` throws, the decoder keeps throwing
/// the same error: the session it served is over.
public struct FrameDecoder: Sendable {
    /// 64 MiB, the design's default.
    public static let defaultMaxFrameLength = 64 << 20
    /// Bodies at least this long take the in-place payload path.
    public static let directPayloadThreshold = 256 << 10

    /// The largest accepted value of a frame's length field.
    public let maxFrameLength: Int

    /// Bytes `[readIndex, writeIndex)` are received and not yet decoded; `storage.count` is the
    /// capacity, so a transport can read into the tail.
    private var storage: [UInt8]
    private var readIndex = 0
    private var writeIndex = 0
    /// A large frame whose fixed fields are decoded and whose payload is being filled.
    private var largeHead: PayloadHead?
    private var largePayload: [UInt8] = []
    private var largeFilled = 0
    private var failure: ProtocolViolation?
    private var discarded = false
    private var channelNames = ChannelNameCache()

    public init(maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength) {
        self.maxFrameLength = max(1, min(maxFrameLength, Int(UInt32.max)))
        self.storage = []
    }

    /// Bytes received and not yet returned as frames.
    public var bufferedByteCount: Int { writeIndex - readIndex + largeFilled }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { append($0) } }
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while !rest.isEmpty {
            let taken = withUnsafeMutableInputBuffer(minimumCapacity: rest.count) { target in
                let count = min(target.count, rest.count)
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<count]))
                return count
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
        }
    }

    /// Lets a transport write received bytes straight into the decoder. `fill` gets free space
    /// (at least `minimumCapacity` bytes, or the rest of a large payload, whichever is smaller)
    /// and returns how many bytes it wrote there; a negative result counts as 0.
    @discardableResult
    public mutating func withUnsafeMutableInputBuffer(
        minimumCapacity: Int = 64 << 10,
        _ fill: (UnsafeMutableRawBufferPointer) -> Int
    ) -> Int {
        if largeHead != nil, largeFilled < largePayload.count {
            let start = largeFilled
            let written = largePayload.withUnsafeMutableBytes { all in
                let free = UnsafeMutableRawBufferPointer(rebasing: all[start...])
                return min(max(0, fill(free)), free.count)
            }
            largeFilled += written
            return written
        }
        reserveFreeSpace(max(1, minimumCapacity))
        let start = writeIndex
        let written = storage.withUnsafeMutableBytes { all in
            let free = UnsafeMutableRawBufferPointer(rebasing: all[start...])
            return min(max(0, fill(free)), free.count)
        }
        writeIndex += written
        return written
    }

    /// Drops everything buffered and decodes nothing more: the session it served is over.
    package mutating func discardBuffered() {
        discarded = true
        storage = []
        readIndex = 0
        writeIndex = 0
        largeHead = nil
        largePayload = []
        largeFilled = 0
    }

    /// Returns the next complete frame, or `nil` until more bytes arrive.
    public mutating func next() throws(ProtocolViolation) -> Frame? {
        guard let decoded = try nextDecoded(inPlace: false) else { return nil }
        return decoded.frame
    }

    /// A frame from `nextInPlace()`: a REQUEST's payload can be left where it was received.
    package enum DecodedFrame {
        case frame(Frame)
        /// A REQUEST whose payload is `buffer[payload]` (`payload` is `nil` for a null payload).
        /// `buffer` shares the decoder's storage, so it stays valid whatever the decoder does;
        /// release it before giving the decoder more bytes, or that write copies the storage.
        case request(id: UInt32, channel: String, buffer: [UInt8], payload: Range<Int>?)

        package var kind: Frame.Kind {
            switch self {
            case .frame(let frame): frame.kind
            case .request: .request
            }
        }

        /// The frame, its payload copied out of the buffer if it was left there.
        package var frame: Frame {
            switch self {
            case .frame(let frame):
                frame
            case .request(let id, let channel, let buffer, let payload):
                .request(id: id, channel: channel, payload: payload.map { Array(buffer[$0]) })
            }
        }
    }

    /// Like `next()`, except that a small REQUEST's payload is not copied (issue 18): a handler
    /// that can read it in place (`InPlaceMessageHandler`) gets it without an array of its own.
    package mutating func nextInPlace() throws(ProtocolViolation) -> DecodedFrame? {
        try nextDecoded(inPlace: true)
    }

    @inline(__always)
    private mutating func nextDecoded(inPlace: Bool) throws(ProtocolViolation) -> DecodedFrame? {
        if discarded { return nil }
        if let failure { throw failure }
        do {
            return try decodeNext(inPlace: inPlace)
        } catch {
            failure = error
            throw error
        }
    }

    @inline(__always)
    private mutating func decodeNext(inPlace: Bool) throws(ProtocolViolation) -> DecodedFrame? {
        if let head = largeHead {
            guard largeFilled == largePayload.count else { return nil }
            let payload = largePayload
            largeHead = nil
            largePayload = []
            largeFilled = 0
            return .frame(head.frame(payload: payload))
        }
        let available = writeIndex - readIndex
        guard available >= 4 else { return nil }
        let length = storage.withUnsafeBytes { raw in
            Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: readIndex, as: UInt32.self)))
        }
        guard length <= maxFrameLength else {
            throw ProtocolViolation(.frameTooLarge,
                                    "frame length \(length) exceeds the maximum of \(maxFrameLength) bytes")
        }
        guard length >= 1 else { throw ProtocolViolation(.emptyFrame, "frame length 0 leaves no kind byte") }
        let bodyStart = readIndex + 5
        let bodyLength = length - 1

        if available >= 4 + length {
            let kind = storage[readIndex + 4]
            var names = channelNames
            let decoded: DecodedFrame
            if inPlace, kind == Frame.Kind.request.rawValue {
                let parsed = try storage.withUnsafeBytes { raw in
                    Result { () throws(ProtocolViolation) in
                        try FrameParser.parseHead(kind: .request,
                                                  bytes: UnsafeRawBufferPointer(rebasing: raw[bodyStart..<bodyStart + bodyLength]),
                                                  bodyLength: bodyLength, names: &names)
                    }
                }.get()
                guard case (.request(let id, let channel, let isNull), let headLength)? = parsed else {
                    throw FrameParser.shortBody(.request, bodyLength)
                }
                decoded = .request(id: id, channel: channel, buffer: storage,
                                   payload: isNull ? nil : bodyStart + headLength..<bodyStart + bodyLength)
            } else {
                decoded = .frame(try storage.withUnsafeBytes { raw in
                    Result { () throws(ProtocolViolation) in
                        try FrameParser.parse(kind: kind,
                                              body: UnsafeRawBufferPointer(rebasing: raw[bodyStart..<bodyStart + bodyLength]),
                                              names: &names)
                    }
                }.get())
            }
            channelNames = names
            readIndex += 4 + length
            if readIndex == writeIndex { readIndex = 0; writeIndex = 0 }
            return decoded
        }

        guard available >= 5 else { return nil }
        let kind = storage[readIndex + 4]
        guard let known = Frame.Kind(rawValue: kind) else { throw FrameParser.unknownKind(kind) }
        guard bodyLength >= Self.directPayloadThreshold,
              known == .request || known == .message || known == .reply else { return nil }
        let end = writeIndex
        var names = channelNames
        let parsed = try storage.withUnsafeBytes { raw in
            Result { () throws(ProtocolViolation) in
                try FrameParser.parseHead(kind: known, bytes: UnsafeRawBufferPointer(rebasing: raw[bodyStart..<end]),
                                          bodyLength: bodyLength, names: &names)
            }
        }.get()
        channelNames = names
        guard let (head, headLength) = parsed else { return nil }
        // Everything buffered belongs to this incomplete frame: move its payload bytes over.
        let payloadLength = bodyLength - headLength
        let bufferedPayload = end - (bodyStart + headLength)
        largePayload = [UInt8](unsafeUninitializedCapacity: payloadLength) { _, count in count = payloadLength }
        let from = bodyStart + headLength
        storage.withUnsafeBytes { raw in
            largePayload.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[from..<from + bufferedPayload]))
            }
        }
        largeFilled = bufferedPayload
        largeHead = head
        readIndex = 0
        writeIndex = 0
        return nil
    }

    private mutating func reserveFreeSpace(_ minimum: Int) {
        if storage.count - writeIndex >= minimum { return }
        if readIndex > 0 {
            let (from, count) = (readIndex, writeIndex - readIndex)
            storage.withUnsafeMutableBytes { raw in
                if count > 0 { raw.baseAddress!.copyMemory(from: raw.baseAddress! + from, byteCount: count) }
            }
            readIndex = 0
            writeIndex = count
        }
        let needed = writeIndex + minimum
        if storage.count < needed {
            let newCount = max(needed, storage.count * 2, 4096)
            // A new buffer and one copy, the way `largePayload` is made above, rather than
            // `append(contentsOf: repeatElement(…))`: the bytes past `writeIndex` are written by
            // the next read before anything reads them, and in a debug build the generic append
            // instantiates `Repeated` metadata on every reader thread at once, where the
            // instrumented runtime once stalled (README "Sanitizers").
            let old = storage
            storage = [UInt8](unsafeUninitializedCapacity: newCount) { buffer, count in
                buffer.initialize(repeating: 0)
                count = newCount
            }
            if !old.isEmpty {
                storage.withUnsafeMutableBytes { raw in
                    old.withUnsafeBytes { raw.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                }
            }
        }
    }
}
