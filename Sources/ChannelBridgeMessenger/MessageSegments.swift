/// One message given as arrays to be sent back to back: `first`, then each of `rest`. The peer
/// receives them as one message. A transport sends a large segment straight from its array (with
/// scatter-gather I/O) instead of copying it into a frame buffer.
///
/// ```swift
/// let header: [UInt8] = [0x08, 0xFF, 0x00, 0x00, 0x00, 0x01]   // a 16 MiB Uint8List follows
/// let reply = try await messenger.send(onChannel: "bulk", segments: MessageSegments(header, rest: [bigBuffer]))
/// ```
package struct MessageSegments: Sendable, Hashable {
    package var first: [UInt8]
    /// Empty for a message of one array; an empty array costs no allocation.
    package var rest: [[UInt8]]

    package init(_ first: [UInt8], rest: [[UInt8]] = []) {
        self.first = first
        self.rest = rest
    }

    /// The number of bytes in all segments.
    package var count: Int { rest.reduce(first.count) { $0 + $1.count } }

    /// The message as one array; no copy when `rest` is empty.
    package var joined: [UInt8] {
        guard !rest.isEmpty else { return first }
        var all: [UInt8] = []
        all.reserveCapacity(count)
        all.append(contentsOf: first)
        for segment in rest { all.append(contentsOf: segment) }
        return all
    }

    /// Every segment, in order.
    var all: [[UInt8]] { [first] + rest }
}
