import ChannelBridgeTestSupport
import Foundation

/// Runs `work` on a new thread and waits for it, at most `seconds`: false when it has not finished
/// by then (it is left to finish on its own). A callback calls it to show that a lock `work` takes
/// is not held while the callback runs: if it were, this would wait out the timeout.
func finishesOnAnotherThread(within seconds: Int = 5, _ work: @escaping @Sendable () -> Void) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        work()
        finished.signal()
    }
    return finished.wait(timeout: .now() + .seconds(HangGuardScale.scaled(seconds))) == .success
}
