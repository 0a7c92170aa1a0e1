package import ChannelBridgeBytes

/// A request or MESSAGE as a `MessageHandler` reads it: a borrowed view of its `Payload`, valid
/// only during the handler's call. `bytes` are the payload's readable bytes where they were
/// received; `tail` is the one segment of a large payload split for the handler
/// (`PayloadSplitter`), an array the handler may keep.
///
/// A view rather than the `Payload` itself: a request answered where it was read lies in the
/// connection's receive buffer, and a handler given that buffer's array in a value would retain
/// and release it with every request, and could keep it, forcing a copy when the reader next
/// reuses the buffer. The view lends the bytes through a pointer for the length of the call and
/// hands out an array only through `array`.
package struct HandlerMessage {
    /// The payload's readable bytes (its first part when `tail` is set); `nil` for a null payload.
    package let bytes: UnsafeRawBufferPointer?
    /// The last part of a split payload, which follows `bytes`.
    package let tail: [UInt8]?
    /// The array `bytes` is the whole of, when the payload owns one (it was received into an
    /// array of its own, not lent from the receive buffer).
    private let owned: [UInt8]?

    init(bytes: UnsafeRawBufferPointer?, tail: [UInt8]?, owned: [UInt8]?) {
        self.bytes = bytes
        self.tail = tail
        self.owned = owned
    }

    /// The payload's length in bytes.
    package var count: Int { (bytes?.count ?? 0) + (tail?.count ?? 0) }

    /// The payload as an array a handler may keep (work that runs later does): the array it was
    /// received into when it has one of its own, with no copy; otherwise copied once (a split
    /// payload joined).
    package var array: [UInt8]? {
        if let owned { return owned }
        guard let bytes else { return nil }
        guard let tail else { return Array(bytes) }
        var joined: [UInt8] = []
        joined.reserveCapacity(bytes.count + tail.count)
        joined.append(contentsOf: bytes)
        joined.append(contentsOf: tail)
        return joined
    }

    /// Runs `body` on `payload` as a handler's message: its readable bytes where they lie, its one
    /// segment (a split payload's last part) as `tail`, and its storage as the kept array when
    /// the payload owns it whole. `nil` is a null payload.
    @inline(__always)
    package static func reading<R>(_ payload: Payload?, _ body: (HandlerMessage) throws -> R) rethrows -> R {
        guard let payload else { return try body(HandlerMessage(bytes: nil, tail: nil, owned: nil)) }
        let range = payload.readableRange
        if payload.isLent, payload.isContiguous {
            // The request read where it lies, the common case: a view with no array in it, so
            // that the view holds no reference to retain and release.
            return try payload.storage.withUnsafeBytes {
                try body(HandlerMessage(bytes: UnsafeRawBufferPointer(rebasing: $0[range]), tail: nil, owned: nil))
            }
        }
        assert(payload.segments.count <= 1, "a received payload has at most one segment, its last part")
        let tail = payload.firstSegment
        let owned =
            tail == nil && range.lowerBound == 0 && range.upperBound == payload.storage.count ? payload.storage : nil
        return try payload.storage.withUnsafeBytes {
            try body(HandlerMessage(bytes: UnsafeRawBufferPointer(rebasing: $0[range]), tail: tail, owned: owned))
        }
    }

    /// Runs `body` on `payload` as a handler's message (a messenger that received it as an array).
    package static func reading<R>(_ payload: [UInt8]?, _ body: (HandlerMessage) throws -> R) rethrows -> R {
        guard let payload else { return try body(HandlerMessage(bytes: nil, tail: nil, owned: nil)) }
        return try payload.withUnsafeBytes { try body(HandlerMessage(bytes: $0, tail: nil, owned: payload)) }
    }
}
