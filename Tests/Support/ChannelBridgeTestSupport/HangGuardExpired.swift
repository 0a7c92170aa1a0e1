/// A test stopped waiting instead of hanging: the guard around its body expired, or something it
/// waited for can no longer come (a child process ended, a stream finished early).
///
/// ```swift
/// throw HangGuardExpired(description: "the peer ended before its ready line")
/// ```
public struct HangGuardExpired: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }

    /// The guard around a whole test body, `seconds` long, expired; `place` names the test.
    public init(seconds: Int, place: String) {
        self.init(description: "hang guard: \(place) did not finish within \(seconds) s")
    }
}
