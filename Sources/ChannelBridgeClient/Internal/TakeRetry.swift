import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// How a `SharedPreferencesClient` reaches a host again when its connection ended: the
/// connection it made last (closed when it makes the next, and when this is released).
final class Reconnector: Sendable {
    private let connect: @Sendable () async throws -> (messenger: any BinaryMessenger, close: @Sendable () -> Void)
    private let current = LockedValue<(@Sendable () -> Void)?>(nil)

    init(
        _ connect: @escaping @Sendable () async throws -> (messenger: any BinaryMessenger, close: @Sendable () -> Void)
    ) {
        self.connect = connect
    }

    /// A new messenger to the host; the one made before (if any) is closed.
    func reconnect() async throws -> any BinaryMessenger {
        let made = try await connect()
        let previous = current.withLock { current in
            defer { current = made.close }
            return current
        }
        previous?()
        return made.messenger
    }

    deinit {
        current.withLock { $0 }?()
    }
}

/// The retry rule of `SharedPreferencesClient.take`: the same request id on every attempt, a new
/// attempt only when the connection ended before the reply (the take may or may not have been
/// made; its receipt on the host tells), backing off from 50 ms to 1 s between attempts, for at
/// most `retryFor`.
enum TakeRetry {
    static func run(
        retryFor: Duration, reconnector: Reconnector?, first: any BinaryMessenger,
        appGroup: String?, callTimeout: Duration?, _ attempt: @Sendable (MethodChannel) async throws -> StandardValue
    )
        async throws -> StandardValue
    {
        let clock = ContinuousClock()
        let deadline = clock.now + retryFor
        var channel = MethodChannel(name: SharedPreferencesClient.channelName, messenger: first)
        var pause = Duration.milliseconds(50)
        while true {
            do {
                return try await attempt(channel)
            } catch let error as ChannelError where error.code == .connectionClosed {
                guard let reconnector else { throw error }
                channel = try await reconnected(
                    reconnector, appGroup: appGroup, callTimeout: callTimeout,
                    deadline: deadline, pause: &pause, lastError: error)
            }
        }
    }

    /// A channel on a new connection (with `appGroup` chosen again), trying until `deadline`.
    private static func reconnected(
        _ reconnector: Reconnector, appGroup: String?, callTimeout: Duration?, deadline: ContinuousClock.Instant,
        pause: inout Duration, lastError: any Error
    ) async throws -> MethodChannel {
        var lastError = lastError
        while ContinuousClock().now < deadline {
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(1))
            do {
                let channel = MethodChannel(
                    name: SharedPreferencesClient.channelName, messenger: try await reconnector.reconnect())
                if let appGroup {
                    _ = try await channel.invokeMethod(
                        "setAppGroup", arguments: ["appGroup": .string(appGroup)],
                        timeout: callTimeout)
                }
                return channel
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}
