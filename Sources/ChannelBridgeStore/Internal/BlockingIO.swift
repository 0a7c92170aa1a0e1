import ChannelBridgePlatform

/// Runs blocking store work (file I/O, `flock`, `fsync`) on the store's read threads and suspends
/// the calling task until it is done, so the cooperative pool never blocks on the kernel.
enum BlockingIO {
    /// Reads may run side by side (they never block on the group's lock), on at most four
    /// threads for the whole process; more waiting reads wait their turn in order (see
    /// `BlockingThreadPool` for why the threads stay and what bounds the waiting).
    static let readPool = BlockingThreadPool(name: "store read", maximumThreads: 4)

    static func run<T: Sendable>(
        on pool: BlockingThreadPool, _ work: @escaping @Sendable () throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            pool.submit {
                continuation.resume(returning: Result { () throws(StoreError) -> T in try work() })
            }
        }
        return try result.get()
    }
}
