import ChannelBridgePlatform
import Foundation
import Synchronization

/// Samples a host's resident memory, open file descriptors and threads once a second on a thread
/// of its own (reading `/proc` blocks), until stopped; then gives each one's first and last value
/// and its least-squares slope per minute over the samples after a warm-up.
final class HostSampler: Sendable {
    struct Sample: Sendable {
        /// Seconds since sampling started.
        var time: Double
        var residentMegabytes: Double
        var fileDescriptors: Double
        var threads: Double
    }

    private let samples = LockedValue<[Sample]>([])
    private let running = Atomic<Bool>(true)
    /// Whether the sampling thread has ended, and who waits for it to.
    private let ending = LockedValue<(ended: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    init(_ host: StressHost, everyMilliseconds interval: Int = 1000) {
        let pid = host.child.pid
        let thread = Thread { [self] in
            let start = ContinuousClock.now
            var next = start
            while running.load(ordering: .relaxed) {
                let sample = Sample(
                    time: (ContinuousClock.now - start).milliseconds / 1000,
                    residentMegabytes: host.residentMegabytes(),
                    fileDescriptors: Double(ProcessTable.descriptors(of: pid) ?? -1),
                    threads: Double(host.threads()))
                samples.withLock { $0.append(sample) }
                next += .milliseconds(interval)
                // Short sleeps, so that `stop` is noticed soon.
                while running.load(ordering: .relaxed), ContinuousClock.now < next {
                    Syscalls.sleep(microseconds: 20_000)
                }
            }
            let waiter = ending.withLock { ending in
                ending.ended = true
                defer { ending.waiter = nil }
                return ending.waiter
            }
            waiter?.resume()
        }
        thread.name = "soak sampler"
        thread.start()
    }

    /// Stops sampling, waits for the sampling thread to end and returns the samples.
    func stop() async -> [Sample] {
        running.store(false, ordering: .relaxed)
        await withCheckedContinuation { continuation in
            let resumeNow = ending.withLock { ending -> Bool in
                if ending.ended { return true }
                ending.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return samples.withLock { $0 }
    }

    /// The least-squares slope of `values` against `times` (per unit of time), 0 with fewer than
    /// two distinct times.
    static func slope(times: [Double], values: [Double]) -> Double {
        let count = Double(times.count)
        guard times.count >= 2 else { return 0 }
        let meanTime = times.reduce(0, +) / count, meanValue = values.reduce(0, +) / count
        var covariance = 0.0, variance = 0.0
        for (time, value) in zip(times, values) {
            covariance += (time - meanTime) * (value - meanValue)
            variance += (time - meanTime) * (time - meanTime)
        }
        return variance > 0 ? covariance / variance : 0
    }
}
