import Synchronization

/// One spare buffer for encoding calls, so that a channel's calls in a row reuse one array
/// instead of allocating one each. Bounded: it holds at most one buffer, of at most
/// `maxKeptCapacity` bytes; a caller that finds it empty or busy (another call is taking or giving
/// back the buffer at that instant) encodes into a new array, and a buffer that is larger, or
/// comes back while another is kept or the pool is busy, is freed rather than kept.
///
/// The spare is guarded by a try-lock of one atomic flag rather than a `Mutex`: it is taken and
/// given back once per call, nobody ever needs to wait for it, and the flag's exchange and store
/// cost a fraction of a mutex's lock and unlock. Acquire and release orderings make the
/// flag a lock ThreadSanitizer sees.
// @unchecked: `spare` is touched only by the thread that swapped `busy` from false to true, until it stores false.
final class EncodeBufferPool: @unchecked Sendable {
    /// Buffers above this capacity are freed, not kept: a big call does not pin its memory. Below
    /// `MessengerConnection.separatePayloadThreshold`, so a kept buffer's bytes were always copied
    /// into the outbound frame, never queued by reference.
    static let maxKeptCapacity = 16 << 10

    private let busy = Atomic<Bool>(false)
    private nonisolated(unsafe) var spare: [UInt8] = []

    /// The spare buffer (empty or not), or a new empty array when there is none or the pool is busy.
    func take() -> [UInt8] {
        var taken: [UInt8] = []
        guard !busy.exchange(true, ordering: .acquiring) else { return taken }
        swap(&taken, &spare)
        busy.store(false, ordering: .releasing)
        return taken
    }

    /// Keeps `buffer` for the next call, unless it is too large, a spare is already kept, or the
    /// pool is busy.
    func giveBack(_ buffer: consuming [UInt8]) {
        guard buffer.capacity <= Self.maxKeptCapacity else { return }
        var buffer = buffer
        guard !busy.exchange(true, ordering: .acquiring) else { return }
        if spare.capacity == 0 { swap(&spare, &buffer) }
        busy.store(false, ordering: .releasing)
    }
}
