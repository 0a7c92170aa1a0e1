import Foundation

/// How long hang guards wait. Short by default, so a hang fails in seconds, not minutes; builds that
/// run everything several times slower (ThreadSanitizer, AddressSanitizer, valgrind) stretch every
/// guard with `CHANNELBRIDGE_HANG_GUARD_SCALE`, a whole number (`Scripts/sanitize` sets it).
///
/// ```sh
/// CHANNELBRIDGE_HANG_GUARD_SCALE=5 swift test --sanitize=thread
/// ```
public enum HangGuardScale {
    /// A test body's guard unless it says otherwise: far above what any test needs on a loaded
    /// 2-core machine (the slowest whole test takes a few seconds), far below a CI timeout.
    public static let defaultSeconds = 30

    /// The factor from `CHANNELBRIDGE_HANG_GUARD_SCALE` (1 when unset or not a positive number).
    public static let factor: Int = {
        guard let text = ProcessInfo.processInfo.environment["CHANNELBRIDGE_HANG_GUARD_SCALE"], let value = Int(text),
            value > 0
        else { return 1 }
        return value
    }()

    /// `seconds` stretched by `factor`.
    public static func scaled(_ seconds: Int) -> Int { seconds * factor }

    /// `duration` stretched by `factor`.
    public static func scaled(_ duration: Duration) -> Duration { duration * factor }
}
