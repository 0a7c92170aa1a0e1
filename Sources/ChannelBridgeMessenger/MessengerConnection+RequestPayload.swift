extension MessengerConnection {
    /// A request's payload: an array of its own, still in the receive buffer (`buffer[range]`,
    /// see `FrameDecoder.nextInPlace()`), copied out only for a handler that keeps it, or a large
    /// one in two parts, joined for a handler that cannot adopt the last (`PayloadSplitter`).
    enum RequestPayload {
        case owned([UInt8]?)
        case inBuffer([UInt8], Range<Int>?)
        case split([UInt8], tail: [UInt8])

        /// The payload's length in bytes.
        var count: Int {
            switch self {
            case .owned(let bytes): bytes?.count ?? 0
            case .inBuffer(_, let range): range?.count ?? 0
            case .split(let head, let tail): head.count + tail.count
            }
        }

        var array: [UInt8]? {
            switch self {
            case .owned(let bytes): bytes
            case .inBuffer(let buffer, let range): range.map { Array(buffer[$0]) }
            case .split(let head, let tail): head + tail
            }
        }

        /// Runs `body` on the payload's bytes, and on its last part when it is split: then the
        /// bytes are its first part only.
        func withBytes<R>(_ body: (UnsafeRawBufferPointer?, [UInt8]?) throws -> R) rethrows -> R {
            switch self {
            case .owned(nil), .inBuffer(_, nil):
                try body(nil, nil)
            case .owned(let bytes?):
                try bytes.withUnsafeBytes { try body($0, nil) }
            case .inBuffer(let buffer, let range?):
                try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range]), nil) }
            case .split(let head, let tail):
                try head.withUnsafeBytes { try body($0, tail) }
            }
        }
    }
}
