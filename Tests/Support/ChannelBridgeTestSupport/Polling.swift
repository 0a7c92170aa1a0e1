/// Polls `condition` for up to `seconds`; false if it never held. Only for what nothing can signal:
/// the kernel closing a process's descriptors after `close`, which no API announces. Everything a
/// test waits for in this package's own code is an event (`Collector`, `RawPeer.waitForFrames`,
/// `waitUntilClosed`, continuations), not a poll. `seconds` is a bound on a wait, like a hang guard's,
/// so it stretches as they do (`HangGuardScale`): sanitized builds start processes several times slower.
public func settles(within seconds: Int = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(HangGuardScale.scaled(seconds))
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
