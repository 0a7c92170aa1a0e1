/// The reader's account of the peer's unfinished frame against the frame deadline (wire
/// protocol §4.10, rule 9): which frame it times, and how long this side has waited for its
/// bytes. Only waits on an empty socket are added, so the time between frames, time spent
/// delivering, and time this side holds the peer's input back are never counted.
struct FrameClock {
    /// `MessengerConnection.partialFrameNumber` of the frame timed; a new number starts afresh.
    private var frame = Int.min
    /// Seconds waited for the rest of `frame`.
    private(set) var waited = 0.0
    /// The deadline passed and the peer was told: the reader only reads until the end now.
    var expired = false

    /// Seconds this side may still wait for frame `number`, of which `bytes` have arrived.
    mutating func secondsLeft(frame number: Int, bytes: Int, timeout: Double, minimumRate: Double) -> Double {
        if number != frame {
            frame = number
            waited = 0
        }
        return timeout + Double(bytes) / minimumRate - waited
    }

    mutating func add(waited seconds: Double) {
        waited += max(0, seconds)
    }
}
