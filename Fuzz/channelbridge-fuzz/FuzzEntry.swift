import ChannelBridgeFuzzTargets

// libFuzzer's entry points. Built only by `Scripts/fuzz`: `--sanitize=fuzzer` links libFuzzer,
// which provides `main`. `FuzzDriver` reads this program's own flags (`--target=NAME`, …).

/// The target every input goes to. Written once by `LLVMFuzzerInitialize` before libFuzzer calls
/// `LLVMFuzzerTestOneInput`, on the same thread, and only read after that.
nonisolated(unsafe) private var selected: (AnyFuzzTarget)?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    var arguments: [String] = []
    if let vector = argv.pointee {
        for index in 0..<Int(argc.pointee) {
            if let argument = vector[index] { arguments.append(String(cString: argument)) }
        }
    }
    selected = FuzzDriver.start(arguments: arguments)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected?.run(input)
    return 0
}
