import Foundation
import Synchronization

/// Ends `channelbridge-bench` with an error when a scenario stops making progress, so that a lost reply
/// or a stream that never ends is reported instead of hanging the run (and the test that runs it).
///
/// Scenarios call `tick()` after each call, event, round trip or baseline run; a thread of its own
/// checks once a second that the count moved within `limit`.
enum BenchWatchdog {
    private static let progress = Atomic<Int>(0)
    private static let scenario = Mutex("")
    private static let started = Atomic<Bool>(false)

    static func tick() {
        progress.add(1, ordering: .relaxed)
    }

    /// Names the scenario that is running, for the message.
    static func enter(_ name: String) {
        scenario.withLock { $0 = name }
        tick()
    }

    /// Starts watching (once per process).
    static func start(limit: Duration) {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            var last = progress.load(ordering: .relaxed)
            var lastChange = ContinuousClock.now
            while true {
                BenchSystem.sleep(microseconds: 1_000_000)
                let now = progress.load(ordering: .relaxed)
                if now != last {
                    last = now
                    lastChange = .now
                } else if ContinuousClock.now - lastChange > limit {
                    let name = scenario.withLock { $0 }
                    BenchOutput.error("channelbridge-bench: scenario \(name) made no progress for \(limit); giving up")
                    BenchSystem.exit(1)
                }
            }
        }
        thread.name = "bench watchdog"
        thread.start()
    }
}
