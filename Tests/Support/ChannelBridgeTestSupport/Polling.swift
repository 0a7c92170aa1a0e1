/// Polls `condition` until it holds, sleeping a little between polls; the hang guard around the
/// test bounds it.
///
/// ```swift
/// await eventually { arrived.count == 3 }
/// ```
public func eventually(_ condition: () -> Bool) async {
    while !condition() {
        try? await Task.sleep(for: .milliseconds(2))
    }
}

/// Polls `condition` for up to `seconds`; false if it never held. For conditions that other tests
/// running at the same time could hold up, so that the test can report what it saw.
public func settles(within seconds: Int = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
