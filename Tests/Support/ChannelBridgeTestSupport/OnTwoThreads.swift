import ChannelBridgePlatform

/// Runs `first` on a thread of its own, then `second` on another thread while the first is still
/// alive, and returns both results: for tests of what one thread may do and another may not.
/// Two live threads never share an identity (`ThreadIdentity`), whereas a thread started after
/// another ended may reuse its. Neither runs on Swift's cooperative pool; the first thread parks
/// until the second has returned, so `second` must not wait for anything.
public func onTwoThreads<First: Sendable, Second: Sendable>(
    _ first: @escaping @Sendable () -> First, then second: @escaping @Sendable () -> Second
) async -> (First, Second) {
    await onThread {
        let firstResult = first()
        let secondResult = LockedValue<Second?>(nil)
        let done = TimedSemaphore()
        DetachedThread.start(name: "second thread") {
            let result = second()
            secondResult.withLock { $0 = result }
            done.post()
        }
        done.wait()
        return (firstResult, secondResult.withLock { $0 }!)
    }
}
