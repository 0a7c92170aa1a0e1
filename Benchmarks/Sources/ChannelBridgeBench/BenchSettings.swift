/// How much work each scenario does: `--repeat` repetitions, counts multiplied by `--scale`.
package struct BenchSettings: Sendable {
    var repetitions: Int
    var scale: Double
    /// Run the `rtt` pairs on one CPU (`--no-pin` turns it off).
    var pinRoundTrips = true
    /// Client calls run on the connection's reader thread (`--pool-executor` turns it off).
    var readerExecutor = true

    package init(repetitions: Int, scale: Double, pinRoundTrips: Bool = true, readerExecutor: Bool = true) {
        self.repetitions = repetitions
        self.scale = scale
        self.pinRoundTrips = pinRoundTrips
        self.readerExecutor = readerExecutor
    }

    /// `count` scaled, at least `minimum`.
    func scaled(_ count: Int, minimum: Int = 1) -> Int {
        max(minimum, Int((Double(count) * scale).rounded()))
    }
}
