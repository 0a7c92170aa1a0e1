import Foundation

/// Runs blocking test code (raw sockets, child processes, pipes read to their end) on a thread of
/// its own and suspends until it returns: blocking a thread of Swift's cooperative pool (two on
/// these machines) would stall every other test running meanwhile, and under a sanitizer, where a
/// child takes seconds to start, stall them past their hang guards.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
