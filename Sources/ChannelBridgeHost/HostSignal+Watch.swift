import ChannelBridgePlatform

extension HostSignal {
    /// SIGINT and SIGTERM as `HostSignal`s, as they arrive; their default action (ending the
    /// process) is replaced while the stream lives. This is the mechanism only: what a signal
    /// means is the executable's decision. `extension-host` hands the stream to
    /// `ExtensionHostCommand.main`, which turns the first signal into cancellation of the host's
    /// `run()` (an orderly shutdown, exit 130 / 143), and passes `onRepeat` to end the process at
    /// once on a second signal, for when the orderly way hangs:
    ///
    /// ```swift
    /// let interruptions = HostSignal.watch(onRepeat: { _exit($0.exitStatus) })
    /// exit(await ExtensionHostCommand.main(arguments: arguments, interruptions: interruptions))
    /// ```
    ///
    /// - Parameter onRepeat: called for every signal after the first instead of yielding it, on a
    ///   dispatch thread (so it runs even when the concurrency pool is stuck).
    package static func watch(onRepeat: (@Sendable (HostSignal) -> Void)? = nil) -> AsyncStream<HostSignal> {
        let repeated = onRepeat.map { onRepeat in
            { @Sendable (number: Int32) in
                if let signal = allCases.first(where: { $0.number == number }) { onRepeat(signal) }
            }
        }
        let watch = ProcessSignals.watch(allCases.map(\.number), onRepeat: repeated)
        return AsyncStream { continuation in
            let forwarding = Task {
                for await number in watch.signals {
                    if let signal = allCases.first(where: { $0.number == number }) { continuation.yield(signal) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                forwarding.cancel()
                watch.cancel()
            }
        }
    }
}
