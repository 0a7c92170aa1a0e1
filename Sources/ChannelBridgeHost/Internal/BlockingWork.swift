import ChannelBridgePlatform

/// Runs file work (reading the items file and the Info.plist, copying shared files) on a thread of
/// its own, so that a large copy never holds a thread of the concurrency pool.
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(HostError) -> T) async throws(HostError) -> T {
        let result: Result<T, HostError> = await withCheckedContinuation { continuation in
            let started = DetachedThread.tryStart(name: "host file work") {
                continuation.resume(returning: Result { () throws(HostError) -> T in try body() })
            }
            if started != 0 {
                // No thread: the host cannot start, and says why, instead of stopping the process.
                continuation.resume(
                    returning: .failure(
                        HostError(
                            .resources, "cannot start a thread for file work: \(DetachedThread.describe(started))")))
            }
        }
        return try result.get()
    }
}
