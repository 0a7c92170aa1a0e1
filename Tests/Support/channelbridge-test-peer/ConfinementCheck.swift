import ChannelBridgeMessenger
import ChannelBridgePlatform
@testable import ChannelBridgeSocket
import Foundation
import Glibc

/// `confinement-check WHAT`: breaks the confinement of one reader thread's state on purpose, for
/// `ReaderConfinementCheckTests`. The main thread makes the state its own as that state's reader
/// would; another thread then touches it while the main thread is still alive. A debug build
/// stops there with the assertion on stderr; a release build, which checks nothing, prints
/// `unchecked` and exits 0. WHAT is
///
/// - `-` (or `messenger`): a connection's `ReaderState`. A delivery on the main thread makes it
///   that thread's; the other thread asks the reader's question between reads
///   (`partialFrameByteCount`).
/// - `transport`: a socket transport's `SocketReaderState`. The main thread runs the reader
///   (`runReader`) on a socket whose peer is gone, so it claims the state, meets the end at once
///   and returns; the other thread sends what the reader left queued (`flushDeferred`).
/// - `executor`: a `ReaderExecutor`'s `ReaderState`. The main thread attaches as the reader
///   thread; the other thread asks whether the reader may block (`willBlock`).
enum ConfinementCheck {
    /// A transport that drops what the connection writes.
    final class Discard: FrameTransport {
        func write(
            frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
            _ encode: (UnsafeMutableRawBufferPointer) -> Void
        ) {}
        func close() {}
    }

    static func run(_ what: String) -> Never {
        let breach: @Sendable () -> Void
        switch what {
        case "-", "messenger": breach = messengerBreach()
        case "transport": breach = transportBreach()
        case "executor": breach = executorBreach()
        default: fail("confinement-check: unknown state \(what); use messenger, transport or executor")
        }
        let done = TimedSemaphore()
        DetachedThread.start(name: "not the reader") {
            breach()
            done.post()
        }
        done.wait()
        print("unchecked")
        exit(0)
    }

    private static func messengerBreach() -> @Sendable () -> Void {
        let connection = MessengerConnection(role: .host, transport: Discard())
        do {
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "check"))))
        } catch {
            fail("confinement-check: \(error)")
        }
        return { _ = connection.partialFrameByteCount }
    }

    private static func transportBreach() -> @Sendable () -> Void {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            fail("confinement-check: socketpair: \(String(cString: strerror(errno)))")
        }
        // The peer is gone before the reader starts: its first read meets the end.
        close(fds[1])
        let transport = SocketTransport(fd: fds[0], options: SocketConnection.Options())
        let connection = MessengerConnection(role: .host, transport: transport)
        transport.runReader(for: connection)
        return { transport.flushDeferred() }
    }

    private static func executorBreach() -> @Sendable () -> Void {
        let executor = ReaderExecutor(enabled: true)
        executor.attachReaderThread()
        return { _ = executor.willBlock() }
    }
}
