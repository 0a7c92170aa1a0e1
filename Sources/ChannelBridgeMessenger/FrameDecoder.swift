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
@usableFromInline package struct FrameDecoder: Sendable {
    /// 64 MiB, the design's default.
    @usableFromInline package static let defaultMaxFrameLength = 64 << 20
    /// Bodies at least this long take the in-place payload path.
    package static let directPayloadThreshold = 256 << 10
    /// How much of a payload a `PayloadSplitter` gets to see, at most.
    static let splitPrefixLength = 512

    /// The largest accepted value of a frame's length field.
    package let maxFrameLength: Int

    /// Bytes `[readIndex, writeIndex)` are received and not yet decoded; `storage.count` is the
    /// capacity, so a transport can read into the tail.
    private var storage: [UInt8]
    private var readIndex = 0
    private var writeIndex = 0
    /// A large frame whose fixed fields are decoded and whose payload is being filled.
    private var largeHead: PayloadHead?
    /// When the large payload is split (`splitting`): its first part, complete. `largePayload` is
    /// then its last part.
    private var largeFirst: [UInt8]?
    private var largePayload: [UInt8] = []
    private var largeFilled = 0
    /// Where a large payload may be split in two arrays; a connection sets it.
    package var splitting: PayloadSplitting?
    private var failure: ProtocolViolation?
    private var discarded = false
    private var channelNames = ChannelNameCache()

    package init(maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength) {
        self.maxFrameLength = max(1, min(maxFrameLength, Int(UInt32.max)))
        self.storage = []
    }

    /// Bytes received and not yet returned as frames.
    package var bufferedByteCount: Int { writeIndex - readIndex + largeFilled + (largeFirst?.count ?? 0) }

    /// Nothing is buffered, not even part of a frame: until more bytes are appended, the next
    /// frame is `nil`. A reader that sees it after a frame need not ask again.
    package var isDrained: Bool { readIndex == writeIndex && largeHead == nil }

    /// The length field of the REQUEST frame begun and not complete, once its kind byte is in;
    /// nil when no frame is begun or the one begun is of another kind. For a large frame whose
    /// payload is being filled, the payload's length (the frame less its fixed fields).
    package var pendingRequestLength: Int? {
        if let largeHead {
            guard case .request = largeHead else { return nil }
            return largePayload.count + (largeFirst?.count ?? 0)
        }
        guard writeIndex - readIndex >= 5, storage[readIndex + 4] == Frame.Kind.request.rawValue else { return nil }
        return storage.withUnsafeBytes { raw in
            Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: readIndex, as: UInt32.self)))
        }
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { append($0) } }
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
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
    package mutating func withUnsafeMutableInputBuffer(
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
        largeFirst = nil
        largePayload = []
        largeFilled = 0
    }

    /// Returns the next complete frame, or `nil` until more bytes arrive.
    package mutating func next() throws(ProtocolViolation) -> Frame? {
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
        /// A REPLY with status 0 (bytes) whose payload is `buffer[payload]`, shared as a
        /// `.request`'s is.
        case reply(id: UInt32, buffer: [UInt8], payload: Range<Int>)
        /// A large REQUEST or REPLY (status 0) whose payload is its own payload followed by `tail`,
        /// split where `FrameDecoder.splitting` said.
        case split(Frame, tail: [UInt8])

        package var kind: Frame.Kind {
            switch self {
            case .frame(let frame), .split(let frame, _): frame.kind
            case .request: .request
            case .reply: .reply
            }
        }

        /// The frame, its payload copied out of the buffer if it was left there.
        package var frame: Frame {
            switch self {
            case .frame(let frame):
                frame
            case .request(let id, let channel, let buffer, let payload):
                .request(id: id, channel: channel, payload: payload.map { Array(buffer[$0]) })
            case .reply(let id, let buffer, let payload):
                .reply(id: id, result: .bytes(Array(buffer[payload])))
            case .split(.request(let id, let channel, let head), let tail):
                .request(id: id, channel: channel, payload: (head ?? []) + tail)
            case .split(.reply(let id, .bytes(let head)), let tail):
                .reply(id: id, result: .bytes(head + tail))
            case .split(let frame, _):
                frame  // never made: only REQUESTs and REPLYs with bytes are split
            }
        }
    }

    /// Like `next()`, except that the payload of a small REQUEST, or of a small REPLY with status
    /// 0, is not copied: a handler that reads it where it lies (`MessageHandler`)
    /// gets it without an array of its own, and a reply goes into the buffer its call lent.
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
            let first = largeFirst
            largeHead = nil
            largeFirst = nil
            largePayload = []
            largeFilled = 0
            if let first { return .split(head.frame(payload: first), tail: payload) }
            return .frame(head.frame(payload: payload))
        }
        let available = writeIndex - readIndex
        guard available >= 4 else { return nil }
        let length = storage.withUnsafeBytes { raw in
            Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: readIndex, as: UInt32.self)))
        }
        guard length <= maxFrameLength else {
            throw ProtocolViolation(
                .frameTooLarge,
                "frame length \(length) exceeds the maximum of \(maxFrameLength) bytes")
        }
        guard length >= 1 else { throw ProtocolViolation(.emptyFrame, "frame length 0 leaves no kind byte") }
        let bodyStart = readIndex + 5
        let bodyLength = length - 1

        if available >= 4 + length {
            let kind = storage[readIndex + 4]
            if bodyLength >= Self.directPayloadThreshold, splitting != nil,
                let split = try splitWhole(kind: kind, bodyStart: bodyStart, bodyLength: bodyLength)
            {
                readIndex += 4 + length
                if readIndex == writeIndex { readIndex = 0; writeIndex = 0 }
                return split
            }
            let decoded: DecodedFrame
            if inPlace, kind == Frame.Kind.request.rawValue {
                let parsed = try Self.parseHead(
                    .request, in: storage, at: bodyStart..<bodyStart + bodyLength,
                    bodyLength: bodyLength, names: &channelNames)
                guard case (.request(let id, let channel, let isNull), let headLength)? = parsed else {
                    throw FrameParser.shortBody(.request, bodyLength)
                }
                decoded = .request(
                    id: id, channel: channel, buffer: storage,
                    payload: isNull ? nil : bodyStart + headLength..<bodyStart + bodyLength)
            } else if inPlace, kind == Frame.Kind.reply.rawValue, bodyLength >= 5, storage[bodyStart + 4] == 0 {
                // Status 0, whose checks `parse` makes are all made: the id and status are there.
                let id = storage.withUnsafeBytes {
                    UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: bodyStart, as: UInt32.self))
                }
                decoded = .reply(id: id, buffer: storage, payload: bodyStart + 5..<bodyStart + bodyLength)
            } else {
                decoded = .frame(
                    try Self.parse(
                        kind: kind, in: storage, at: bodyStart..<bodyStart + bodyLength,
                        names: &channelNames))
            }
            readIndex += 4 + length
            if readIndex == writeIndex { readIndex = 0; writeIndex = 0 }
            return decoded
        }

        guard available >= 5 else { return nil }
        let kind = storage[readIndex + 4]
        guard let known = Frame.Kind(rawValue: kind) else { throw FrameParser.unknownKind(kind) }
        guard bodyLength >= Self.directPayloadThreshold,
            known == .request || known == .message || known == .reply
        else { return nil }
        let end = writeIndex
        let parsed = try Self.parseHead(
            known, in: storage, at: bodyStart..<end, bodyLength: bodyLength, names: &channelNames)
        guard let (head, headLength) = parsed else { return nil }
        // Everything buffered belongs to this incomplete frame: move its payload bytes over, into
        // two arrays when the payload's consumer can adopt its last part.
        let payloadLength = bodyLength - headLength
        let bufferedPayload = end - (bodyStart + headLength)
        let from = bodyStart + headLength
        var split = 0
        if let splitter = splitting?.splitter(for: head) {
            // The splitter reads the payload's first bytes: wait for them (a read rarely ends
            // this close to a frame's start; the buffer then takes the next read too).
            if bufferedPayload < min(payloadLength, Self.splitPrefixLength) { return nil }
            split = splitPoint(splitter, payloadAt: from, payloadLength: payloadLength)
        }
        largeFirst = split > 0 ? Array(storage[from..<from + split]) : nil
        let rest = payloadLength - split
        largePayload = [UInt8](unsafeUninitializedCapacity: rest) { _, count in count = rest }
        storage.withUnsafeBytes { raw in
            largePayload.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[from + split..<from + bufferedPayload]))
            }
        }
        largeFilled = bufferedPayload - split
        largeHead = head
        readIndex = 0
        writeIndex = 0
        return nil
    }

    /// Where `splitter` splits the payload at `storage[from...]`, whose first bytes are buffered;
    /// 0 for nowhere. The first part must lie among the bytes it was shown, and neither part be empty.
    private func splitPoint(_ splitter: PayloadSplitter, payloadAt from: Int, payloadLength: Int) -> Int {
        let shown = min(payloadLength, Self.splitPrefixLength)
        let at = storage.withUnsafeBytes { raw in
            splitter(UnsafeRawBufferPointer(rebasing: raw[from..<from + shown]), payloadLength)
        }
        guard let at, at > 0, at <= shown, at < payloadLength else { return 0 }
        return at
    }

    /// A complete large REQUEST or REPLY whose payload a splitter picks, copied out in two arrays
    /// (one copy, as for a whole payload); `nil` for any other frame.
    private mutating func splitWhole(
        kind: UInt8, bodyStart: Int, bodyLength: Int
    ) throws(ProtocolViolation) -> DecodedFrame? {
        guard let known = Frame.Kind(rawValue: kind), known == .request || known == .reply else { return nil }
        let parsed = try Self.parseHead(
            known, in: storage, at: bodyStart..<bodyStart + bodyLength, bodyLength: bodyLength,
            names: &channelNames)
        guard let (head, headLength) = parsed, let splitter = splitting?.splitter(for: head) else { return nil }
        let from = bodyStart + headLength, end = bodyStart + bodyLength
        let split = splitPoint(splitter, payloadAt: from, payloadLength: end - from)
        guard split > 0 else { return nil }
        return .split(
            head.frame(payload: Array(storage[from..<from + split])), tail: Array(storage[from + split..<end]))
    }

    // The parsers are static, given the buffer and the name cache apart: a closure over `self`
    // would make the decoder copy its name cache out and back around every frame, a retain and
    // a release of its entries.

    /// `FrameParser.parseHead` over `storage[bytes]`.
    private static func parseHead(
        _ kind: Frame.Kind, in storage: borrowing [UInt8], at bytes: Range<Int>, bodyLength: Int,
        names: inout ChannelNameCache
    ) throws(ProtocolViolation) -> (PayloadHead, Int)? {
        try storage.withUnsafeBytes { raw in
            Result { () throws(ProtocolViolation) in
                try FrameParser.parseHead(
                    kind: kind, bytes: UnsafeRawBufferPointer(rebasing: raw[bytes]), bodyLength: bodyLength,
                    names: &names)
            }
        }.get()
    }

    /// `FrameParser.parse` of the body at `storage[body]`.
    private static func parse(
        kind: UInt8, in storage: borrowing [UInt8], at body: Range<Int>,
        names: inout ChannelNameCache
    ) throws(ProtocolViolation) -> Frame {
        try storage.withUnsafeBytes { raw in
            Result { () throws(ProtocolViolation) in
                try FrameParser.parse(kind: kind, body: UnsafeRawBufferPointer(rebasing: raw[body]), names: &names)
            }
        }.get()
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
