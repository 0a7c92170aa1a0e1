import ChannelBridgeBytes
import Glibc

/// `payload-range-check -`: sets a payload's readable range past the end of its storage, for
/// `PayloadRangeCheckTests`. The setter's precondition stops the process, in a debug build and in
/// a release build alike; were it to let the range through, this prints `unchecked` and exits 0.
enum PayloadRangeCheck {
    static func run() -> Never {
        var payload = Payload([1, 2, 3])
        // The storage's count is read at run time, so that nothing here can be folded away.
        payload.readableRange = 0..<(payload.storage.count + 1)
        print("unchecked")
        exit(0)
    }
}
