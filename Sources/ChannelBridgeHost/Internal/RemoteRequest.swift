import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform

/// The extension request as an isolated host's worker reaches it: in the host process, over the
/// control channel (`WorkerChannel`). The host ends it exactly once and records its opened URLs.
final class RemoteRequest: Sendable {
    private let channel: MethodChannel
    /// Messages to the host sent from tasks of their own (a plugin's end, the ending reply's
    /// notice), which the worker lets finish before it closes the control channel.
    private let pending = LockedValue<[Task<Void, Never>]>([])

    init(channel: MethodChannel) {
        self.channel = channel
    }

    /// Waits until every message sent without waiting has been answered (or has failed).
    func settle() async {
        for task in pending.withLock({ $0 }) { await task.value }
    }

    private func send(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        pending.withLock { $0.append(task) }
    }

    /// Asks the host to end the request: `nil` when this call ended it, else the earlier outcome's
    /// description.
    func end(_ outcome: HostOutcome, returnedItems: StandardValue?, error: MethodError?) async throws -> String? {
        let answer = try await channel.invokeMethod(
            "end",
            arguments: [
                "outcome": WorkerChannel.encode(outcome), "returnedItems": returnedItems ?? .null,
                "hasReturnedItems": .bool(returnedItems != nil), "error": WorkerChannel.encode(error),
            ])
        return answer.stringValue
    }

    /// Tells the host that the reply to the call that ended the request has been queued.
    func endingReplied() {
        let channel = self.channel
        send { _ = try? await channel.invokeMethod("endingReplied") }
    }

    /// Records an `openURL` call with the host, for the completion record.
    func recordOpenedURL(_ url: OpenedURL) async throws {
        _ = try await channel.invokeMethod(
            "openURL", arguments: ["url": .string(url.url), "opened": .bool(url.opened)])
    }

    /// Forwards an end a plugin decided in the worker (`ExtensionRequest.end`), without waiting.
    func forwardEnd(_ outcome: HostOutcome, returnedItems: StandardValue?, error: MethodError?) {
        send { [self] in _ = try? await end(outcome, returnedItems: returnedItems, error: error) }
    }
}
