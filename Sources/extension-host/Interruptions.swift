import ChannelBridgeHost
import Dispatch
import Glibc
import Synchronization

/// SIGINT and SIGTERM turned into a stream of `HostSignal`s: the first one ends the request as
/// interrupted (exit 130 / 143) after the host's orderly shutdown; a second one (of either kind)
/// ends the process at once with its own status.
enum Interruptions {
    /// Ignores the signals' default action and watches them with dispatch sources, which must be
    /// kept alive as long as the signals should be watched.
    static func install() -> (signals: AsyncStream<HostSignal>, sources: [any DispatchSourceSignal]) {
        let (stream, continuation) = AsyncStream.makeStream(of: HostSignal.self)
        let received = SignalCounter()
        let sources = HostSignal.allCases.map { hostSignal -> any DispatchSourceSignal in
            signal(hostSignal.number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: hostSignal.number, queue: .global())
            source.setEventHandler { @Sendable in
                if received.increment() > 1 { _exit(hostSignal.exitStatus) }
                continuation.yield(hostSignal)
            }
            source.resume()
            return source
        }
        return (stream, sources)
    }
}

/// How many of the watched signals have arrived, of any kind.
final class SignalCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more and returns the new total.
    func increment() -> Int {
        count.add(1, ordering: .relaxed).newValue
    }
}
