import ChannelBridgePlatform

/// One spare buffer for encoding calls, so that a channel's calls in a row reuse one array
/// instead of allocating one each (issue 18). Bounded: it holds at most one buffer, of at most
/// `maxKeptCapacity` bytes; a caller that finds it empty (another call holds the buffer) encodes
/// into a new array, and a larger buffer is dropped rather than kept.
final class EncodeBufferPool: Sendable {
    /// Buffers above this capacity are freed, not kept: a big call does not pin its memory. Below
    /// `MessengerConnection.separatePayloadThreshold`, so a kept buffer's bytes were always copied
    /// into the outbound frame, never queued by reference.
    static let maxKeptCapacity = 16 << 10

    private let spare = LockedValue<[UInt8]>([])

    /// The spare buffer (empty or not), or a new empty array when another call holds it.
    func take() -> [UInt8] {
        spare.withLock { spare in
            var taken: [UInt8] = []
            swap(&taken, &spare)
            return taken
        }
    }

    /// Keeps `buffer` for the next call, unless it is too large or a spare is already kept.
    func giveBack(_ buffer: consuming [UInt8]) {
        guard buffer.capacity <= Self.maxKeptCapacity else { return }
        var buffer = buffer
        spare.withLock { spare in
            if spare.capacity == 0 { swap(&spare, &buffer) }
        }
    }
}
