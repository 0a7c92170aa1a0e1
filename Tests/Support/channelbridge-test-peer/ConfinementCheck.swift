import ChannelBridgeMessenger
import ChannelBridgePlatform
import Foundation

/// `confinement-check`: breaks the confinement of a connection's reader state on purpose, for
/// `ReaderConfinementCheckTests`. A delivery on the main thread makes the state that thread's;
/// another thread then asks the reader's question between reads (`partialFrameByteCount`) while
/// the main thread is still alive. A debug build stops there with the assertion on stderr; a
/// release build, which checks nothing, prints `unchecked` and exits 0.
enum ConfinementCheck {
    /// A transport that drops what the connection writes.
    final class Discard: FrameTransport {
        func write(_ bytes: [UInt8]) {}
        func close() {}
    }

    static func run() -> Never {
        let connection = MessengerConnection(role: .host, transport: Discard())
        do {
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "check"))))
        } catch {
            fail("confinement-check: \(error)")
        }
        let asked = TimedSemaphore()
        DetachedThread.start(name: "not the reader") {
            _ = connection.partialFrameByteCount
            asked.post()
        }
        asked.wait()
        print("unchecked")
        exit(0)
    }
}
