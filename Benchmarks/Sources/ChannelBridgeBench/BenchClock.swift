/// Monotonic time in seconds, cheap enough to read around every call.
enum BenchClock {
    static func now() -> Double {
        BenchSystem.monotonicSeconds()
    }
}
