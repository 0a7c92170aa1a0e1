/// Reads the fuzzer's choices off the front of an input; past the end every choice is 0.
struct InputCursor {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> Int {
        Int(byte()) | Int(byte()) << 8
    }

    /// Everything not read yet.
    var rest: [UInt8] { offset < bytes.count ? Array(bytes[offset...]) : [] }
}
