/// One message's bytes, the one payload type of the codec and the messenger (the role of SwiftNIO's
/// `ByteBuffer`; a transport is handed its `parts`): a storage array, the range of it that is the
/// message's start, and, optionally, further arrays that follow it whole.
///
/// How a payload is held is a property of the value, not a separate entry point:
/// - **one array**: `Payload(bytes)`, the whole array, no segments;
/// - **in a buffer**: `Payload(lending: buffer, count:)` or `Payload(lending:range:)`, a range of a
///   buffer its owner reuses (an encode buffer, a receive buffer, a reply buffer): `isLent`, and the
///   bytes outside the range are room;
/// - **in segments**: `Payload(first, segments:)`, a large byte value kept in its own array instead
///   of copied, sent with scatter-gather I/O; a payload split for its consumer is its head and one
///   segment.
///
/// A lent payload is read where it lies (`withUnsafeReadableBytes`) and given back (`storage`);
/// whoever keeps its bytes takes `array`, a copy. An owned one-array payload's `array` is the array
/// itself, uncopied.
///
/// Invariant: `readableRange` lies within `storage`. The initializers check it (but
/// `init(lending:checkedRange:)`, whose caller has), and so does setting `readableRange`; code that
/// sets `storage` keeps it. The readers (`withUnsafeHeadBytes`, `array`) rely on it.
//
// `@usableFromInline` on a `package` type looks redundant, but without it Swift 6.3 does not inline
// the type's `@inlinable` members into other modules (the same holds for `LockedValue`): every
// `count` or `isLent` would be a call on the request path.
@usableFromInline
package struct Payload: Sendable {
    /// The array `readableRange` is a range of: the whole message when `segments` is empty, else
    /// its first part.
    @usableFromInline package var storage: [UInt8]
    /// Further parts, each a whole array, following the readable range back to back. Empty for a
    /// payload of one array.
    @inlinable
    package var segments: [[UInt8]] {
        @inline(__always) get { tail ?? [] }
        @inline(__always) set { tail = newValue.isEmpty ? nil : newValue }
    }
    /// `segments`, nil when there are none: a payload of one array then holds no second reference
    /// to retain and release as it is passed along.
    @usableFromInline var tail: [[UInt8]]?
    /// `readableRange.lowerBound`.
    @usableFromInline var start: Int
    /// `readableRange.upperBound`, complemented (so negative) when the storage is lent: with the
    /// flag folded in, a payload is four words, which a call passes in registers (a fifth would
    /// send it through memory at every call on the request path).
    @usableFromInline var endAndLent: Int

    /// The bytes of `storage` that are the payload's first part; the rest of `storage` is room.
    @inlinable
    package var readableRange: Range<Int> {
        @inline(__always) get { Range(uncheckedBounds: (start, endAndLent < 0 ? ~endAndLent : endAndLent)) }
        @inline(__always) set {
            precondition(
                newValue.lowerBound >= 0 && newValue.upperBound <= storage.count,
                "a payload's range lies within its storage")
            start = newValue.lowerBound
            endAndLent = endAndLent < 0 ? ~newValue.upperBound : newValue.upperBound
        }
    }

    /// `storage` is a buffer its owner reuses, lent for as long as the payload is read: the bytes
    /// are copied by whoever keeps them.
    @inlinable
    package var isLent: Bool {
        @inline(__always) get { endAndLent < 0 }
    }

    /// The whole of `bytes`.
    @inlinable @inline(__always)
    package init(_ bytes: [UInt8]) {
        start = 0
        endAndLent = bytes.count
        storage = bytes
        tail = nil
    }

    /// `first`, then each of `segments` back to back.
    @inlinable @inline(__always)
    package init(_ first: [UInt8], segments: [[UInt8]]) {
        start = 0
        endAndLent = first.count
        storage = first
        tail = segments.isEmpty ? nil : segments
    }

    /// The first `count` bytes of `buffer`, a buffer its owner reuses; the rest of it is room.
    @inlinable @inline(__always)
    package init(lending buffer: [UInt8], count: Int) {
        precondition(count >= 0 && count <= buffer.count, "a lent payload lies within its buffer")
        start = 0
        endAndLent = ~count
        storage = buffer
        tail = nil
    }

    /// The bytes `range` of `buffer`, a buffer its owner reuses.
    @inlinable @inline(__always)
    package init(lending buffer: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "a lent payload lies within its buffer")
        start = range.lowerBound
        endAndLent = ~range.upperBound
        storage = buffer
        tail = nil
    }

    /// The bytes `range` of `buffer`, a buffer its owner reuses, where the caller has checked
    /// already that `range` lies within `buffer` (a frame decoder handing out a payload it
    /// parsed): no check again, on the path of every request read in place.
    @inlinable @inline(__always)
    package init(lending buffer: [UInt8], checkedRange range: Range<Int>) {
        start = range.lowerBound
        endAndLent = ~range.upperBound
        storage = buffer
        tail = nil
    }

    /// The payload's length in bytes, over every part.
    @inlinable @inline(__always)
    package var count: Int {
        guard let tail else { return readableRange.count }
        return tail.reduce(readableRange.count) { $0 + $1.count }
    }

    /// `segments.first`: the part after the readable range, such as a split payload's last part.
    @inlinable
    package var firstSegment: [UInt8]? {
        @inline(__always) get { tail?.first }
    }

    /// Whether the payload is one range of one array (no `segments`).
    @inlinable @inline(__always)
    package var isContiguous: Bool { tail == nil }

    /// The readable bytes of `storage` (the whole payload when it is contiguous) as an array: the
    /// storage itself, uncopied, when the payload owns it and reads all of it; otherwise a copy.
    @inlinable @inline(__always)
    package var head: [UInt8] {
        if !isLent, readableRange.lowerBound == 0, readableRange.upperBound == storage.count { return storage }
        // Copied by hand: `Array(slice)` shares the storage of a slice that spans all of it, which
        // would leave a lent buffer referenced by whoever keeps the bytes.
        let range = readableRange
        return storage.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: range.count) { target, initialized in
                if let base = source.baseAddress, let into = target.baseAddress, !range.isEmpty {
                    into.initialize(from: base + range.lowerBound, count: range.count)
                }
                initialized = range.count
            }
        }
    }

    /// The payload as one array: `storage` itself, uncopied, when the payload is the whole of an
    /// array it owns; otherwise its parts copied once into a new array.
    @inlinable
    package var array: [UInt8] {
        if tail == nil { return head }
        var all: [UInt8] = []
        all.reserveCapacity(count)
        all.append(contentsOf: storage[readableRange])
        for segment in segments { all.append(contentsOf: segment) }
        return all
    }

    /// Every part as an array of its own, in order: `head`, then `segments`. For a transport that
    /// sends each part from its own array.
    @inlinable
    package var parts: [[UInt8]] {
        var all: [[UInt8]] = []
        all.reserveCapacity(1 + segments.count)
        all.append(head)
        all.append(contentsOf: segments)
        return all
    }

    /// Runs `body` on the readable bytes of `storage`, where they lie: the whole payload when it is
    /// contiguous, its first part otherwise (`segments` follow it).
    @inlinable @inline(__always)
    package func withUnsafeHeadBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let range = readableRange
        // `withUnsafeBytes` rethrows untyped: the typed error goes through a `Result`.
        return try storage.withUnsafeBytes { raw in
            Result { () throws(E) -> R in try body(UnsafeRawBufferPointer(rebasing: raw[range])) }
        }.get()
    }

    /// Runs `body` on the whole payload in one contiguous buffer: where it lies when it is
    /// contiguous, else on its parts joined (one copy).
    @inlinable
    package func withUnsafeReadableBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        if tail == nil { return try withUnsafeHeadBytes(body) }
        return try array.withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
    }

    /// The payload with storage of its own: a lent payload is cut down to its readable bytes (in
    /// place, so without a copy when the payload holds the only reference to a buffer whose
    /// readable bytes start it) and is no longer lent; any other payload is returned as it is.
    @inlinable
    package consuming func owned() -> Payload {
        guard isLent else { return self }
        var bytes = storage
        storage = []
        if readableRange.upperBound != bytes.count { bytes.removeSubrange(readableRange.upperBound...) }
        if readableRange.lowerBound != 0 { bytes.removeSubrange(..<readableRange.lowerBound) }
        return Payload(bytes, segments: segments)
    }

    /// The storage, for its owner to reuse once the payload has been read (a lent buffer goes back
    /// to its pool), leaving this payload empty.
    @inlinable @inline(__always)
    package mutating func takeStorage() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &storage)
        readableRange = 0..<0
        segments = []
        return taken
    }
}

extension Payload: Equatable {
    /// Two payloads are equal when they have the same parts with the same bytes: the readable
    /// bytes of their storage, then the same segments. Room and `isLent` do not count.
    @inlinable
    package static func == (lhs: Payload, rhs: Payload) -> Bool {
        lhs.readableRange.count == rhs.readableRange.count
            && lhs.storage[lhs.readableRange].elementsEqual(rhs.storage[rhs.readableRange])
            && lhs.segments == rhs.segments
    }
}

extension Payload: Hashable {
    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(readableRange.count)
        for byte in storage[readableRange] { hasher.combine(byte) }
        hasher.combine(segments)
    }
}

extension Payload: CustomStringConvertible {
    /// The parts' lengths, and whether the storage is lent: `Payload(3 bytes)`,
    /// `Payload(2 + 70000 bytes)`, `Payload(5 bytes, lent)`.
    @usableFromInline package var description: String {
        let parts = ([readableRange.count] + segments.map(\.count)).map(String.init).joined(separator: " + ")
        return "Payload(\(parts) bytes\(isLent ? ", lent" : ""))"
    }
}
