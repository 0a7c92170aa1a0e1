import ChannelBridgeSocket

extension HostSignal {
    /// SIGINT and SIGTERM as `HostSignal`s: the first ends the request as interrupted (exit
    /// 130 / 143) after the host's orderly shutdown; a second one ends the process at once.
    /// For the host's executables (`extension-host`, and `channelbridge demo`'s child).
    public static func watch() -> AsyncStream<HostSignal> {
        let watcher = SignalWatcher(allCases.map(\.number))
        return AsyncStream { continuation in
            let forwarding = Task {
                for await number in watcher.signals {
                    if let signal = allCases.first(where: { $0.number == number }) { continuation.yield(signal) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                forwarding.cancel()
                withExtendedLifetime(watcher) {}
            }
        }
    }
}
