import ChannelBridgePlatform
import Dispatch
import Glibc
import Synchronization

/// Turns process signals into an `AsyncStream`, for executables that shut down in order on
/// SIGINT/SIGTERM: the default action of each watched signal is replaced, and a second signal (of
/// any watched kind) ends the process at once with `128 + signal`, for when the orderly way hangs.
///
/// ```swift
/// let watcher = SignalWatcher([SIGINT, SIGTERM])
/// for await number in watcher.signals { beginShutdown(number); break }
/// ```
public final class SignalWatcher: Sendable {
    public let signals: AsyncStream<Int32>
    // The dispatch sources must stay alive for the signals to be watched.
    private let sources: LockedValue<[any DispatchSourceSignal]>

    public init(_ numbers: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let received = Atomic<Int>(0)
        signals = stream
        sources = LockedValue(numbers.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in
                if received.add(1, ordering: .relaxed).newValue > 1 { _exit(128 + number) }
                continuation.yield(number)
            }
            source.resume()
            return source
        })
    }

    /// Stops watching; the signals get their default action back.
    public func cancel() {
        for source in sources.withLock({ $0 }) {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
    }
}
