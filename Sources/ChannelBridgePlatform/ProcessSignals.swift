import Dispatch
import Glibc

/// Process signals as an `AsyncStream`: the mechanism. What a signal means (cancel a host's run,
/// end the process on a second one) is the executable's decision, made in its `main`.
///
/// ```swift
/// let watch = ProcessSignals.watch([ProcessSignals.interrupt, ProcessSignals.terminate])
/// for await number in watch.signals { cancelTheWork(number) }
/// ```
package final class ProcessSignals: Sendable {
    package static let interrupt: Int32 = SIGINT
    package static let terminate: Int32 = SIGTERM

    /// Every watched signal, in the order received; finishes after `cancel()`.
    package let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    // The dispatch sources must stay alive for the signals to be watched.
    private let sources: LockedValue<[any DispatchSourceSignal]>

    /// How many sources are not registered yet, and who waits for none to be left.
    private let registration: LockedValue<(pending: Int, waiters: [CheckedContinuation<Void, Never>])>

    private init(_ numbers: [Int32], onRepeat: (@Sendable (Int32) -> Void)?) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let received = LockedValue(0)
        let registration = LockedValue((pending: numbers.count, waiters: [CheckedContinuation<Void, Never>]()))
        self.registration = registration
        signals = stream
        self.continuation = continuation
        sources = LockedValue(
            numbers.map { number -> any DispatchSourceSignal in
                // The default action (ending the process) is replaced by the stream while watched.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: Self.queue)
                source.setEventHandler { @Sendable in
                    // On the dispatch thread, not the concurrency pool: `onRepeat` still runs when the
                    // pool is stuck, which is when a second signal matters.
                    let count = received.withLock { count in
                        count += 1
                        return count
                    }
                    if count > 1, let onRepeat { onRepeat(number) } else { continuation.yield(number) }
                }
                source.setRegistrationHandler { @Sendable in
                    let waiters = registration.withLock { state -> [CheckedContinuation<Void, Never>] in
                        state.pending -= 1
                        guard state.pending == 0 else { return [] }
                        defer { state.waiters = [] }
                        return state.waiters
                    }
                    for waiter in waiters { waiter.resume() }
                }
                source.resume()
                return source
            })
    }

    /// Starts watching `numbers`: their default action is replaced by the stream. With `onRepeat`,
    /// every signal after the first goes to it (on a dispatch thread) instead of the stream.
    /// Where signals are handled: a serial queue of its own, which libdispatch serves with a
    /// thread even when the global queues' few workers are all busy or blocked, so a signal is
    /// never held up behind other work in the process.
    private static let queue = DispatchQueue(label: "channelbridge.process-signals")

    package static func watch(_ numbers: [Int32], onRepeat: (@Sendable (Int32) -> Void)? = nil) -> ProcessSignals {
        ProcessSignals(numbers, onRepeat: onRepeat)
    }

    /// Returns once every watched signal is registered with the system: a signal sent before
    /// then may be lost (its default action is already replaced).
    package func waitUntilWatching() async {
        await withCheckedContinuation { continuation in
            let ready = registration.withLock { state -> Bool in
                guard state.pending > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Stops watching; the signals get their default action back and the stream finishes.
    package func cancel() {
        let sources = self.sources.withLock { sources in
            defer { sources = [] }
            return sources
        }
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
        continuation.finish()
    }

    /// Makes writing to a closed pipe or socket an error on that descriptor (EPIPE) instead of
    /// the end of the process.
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
