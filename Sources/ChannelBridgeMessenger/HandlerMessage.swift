/// A request or MESSAGE as a `MessageHandler` reads it: its bytes where they were received, and,
/// for a large payload split for the handler (`PayloadSplitter`), its last part in an array the
/// handler may keep. Valid only during the handler's call: `bytes` points into storage the
/// messenger reuses once the handler returns.
package struct HandlerMessage {
    /// The payload (its first part when `tail` is set); `nil` for a null payload.
    package let bytes: UnsafeRawBufferPointer?
    /// The last part of a split payload, which follows `bytes`.
    package let tail: [UInt8]?
    /// The array `bytes` is the whole of, when the payload was received into one of its own.
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

    /// Runs `body` on `payload` as a handler's message (a messenger that received it as an array).
    package static func reading<R>(_ payload: [UInt8]?, _ body: (HandlerMessage) throws -> R) rethrows -> R {
        guard let payload else { return try body(HandlerMessage(bytes: nil, tail: nil, owned: nil)) }
        return try payload.withUnsafeBytes { try body(HandlerMessage(bytes: $0, tail: nil, owned: payload)) }
    }
}
