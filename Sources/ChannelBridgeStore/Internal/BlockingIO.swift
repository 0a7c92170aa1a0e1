import Dispatch

/// Runs blocking store work (file I/O, `flock`, `fsync`) on a dispatch queue and suspends the
/// calling task until it is done, so the cooperative pool never blocks on the kernel.
enum BlockingIO {
    /// Reads may run side by side; they never block on the lock.
    static let readQueue = DispatchQueue(label: "ChannelBridgeStore.read", qos: .userInitiated,
                                         attributes: .concurrent)

    static func run<T: Sendable>(
        on queue: DispatchQueue, _ work: @escaping @Sendable () throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(StoreError) -> T in try work() })
            }
        }
        return try result.get()
    }

    /// As `run`, for work that may also fail with a caller's error (an `update` transform).
    static func runUntyped<T: Sendable>(
        on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { try work() })
            }
        }
        return try result.get()
    }
}
