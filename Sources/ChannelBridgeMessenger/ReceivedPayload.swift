/// A payload as the connection received it: one array, or (a large payload whose consumer adopts
/// its last part, see `PayloadSplitter`) its first part and its last part in arrays of their own.
package enum ReceivedPayload: Sendable {
    case bytes([UInt8])
    case split([UInt8], tail: [UInt8])
    /// The first `count` bytes of the buffer the caller lent for its reply (`startRequest`'s
    /// `replyBuffer`), read into it without an array of its own; the rest is room.
    case inBuffer([UInt8], count: Int)

    /// The payload in one array; a split payload is copied once.
    package var joined: [UInt8] {
        switch self {
        case .bytes(let bytes): bytes
        case .split(let head, let tail): head + tail
        case .inBuffer(let buffer, let count): Array(buffer[..<count])
        }
    }
}
