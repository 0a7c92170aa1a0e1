/// A fixed-seed random number generator (SplitMix64), so that "random" inputs are the same on every
/// run and a failure reproduces from its seed.
///
/// ```swift
/// var generator = SeededGenerator(seed: 7)
/// let split = Int.random(in: 1...8, using: &generator)
/// let payload = generator.bytes(count: 16 << 20)
/// ```
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` varied bytes, made a word at a time. A byte at a time (`UInt8.random(in:using:)` in a
    /// `map`) takes about 18 s for 16 MiB in the unoptimised AddressSanitizer build, all of it on a
    /// thread of the cooperative pool that every other test of the run is waiting for.
    public mutating func bytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                raw.storeBytes(of: next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            guard offset < raw.count else { return }
            var last = next()
            while offset < raw.count {
                raw[offset] = UInt8(truncatingIfNeeded: last)
                last >>= 8
                offset += 1
            }
        }
        return bytes
    }
}
