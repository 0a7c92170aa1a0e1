extension MessengerConnection {
    /// A request's payload: an array of its own, still in the receive buffer (`buffer[range]`,
    /// see `FrameDecoder.nextInPlace()`), copied out only for a handler that keeps it, or a large
    /// one in two parts (`PayloadSplitter`), joined only for a handler that keeps it whole.
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

        /// The payload as an array of its own: the one it was received into, or a copy.
        var array: [UInt8]? { withMessage { $0.array } }

        /// Runs `body` on the payload as a handler reads it (`HandlerMessage`): its bytes where
        /// they lie, its last part when it is split, and the array it was received into when it
        /// has one of its own, which a handler that keeps the payload takes without a copy.
        @inline(__always)
        func withMessage<R>(_ body: (HandlerMessage) throws -> R) rethrows -> R {
            switch self {
            case .owned(nil), .inBuffer(_, nil):
                try body(HandlerMessage(bytes: nil, tail: nil, owned: nil))
            case .owned(let bytes?):
                try bytes.withUnsafeBytes { try body(HandlerMessage(bytes: $0, tail: nil, owned: bytes)) }
            case .inBuffer(let buffer, let range?):
                try buffer.withUnsafeBytes {
                    try body(HandlerMessage(bytes: UnsafeRawBufferPointer(rebasing: $0[range]), tail: nil, owned: nil))
                }
            case .split(let head, let tail):
                try head.withUnsafeBytes { try body(HandlerMessage(bytes: $0, tail: tail, owned: nil)) }
            }
        }
    }
}
