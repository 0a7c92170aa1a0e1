import ChannelBridgeChannels
import ChannelBridgeCodec

/// The extension request as an isolated host's worker reaches it: in the host process, over the
/// control channel (`WorkerChannel`). The host ends it exactly once and records its opened URLs.
final class RemoteRequest: Sendable {
    private let channel: MethodChannel

    init(channel: MethodChannel) {
        self.channel = channel
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
        Task { _ = try? await channel.invokeMethod("endingReplied") }
    }

    /// Records an `openURL` call with the host, for the completion record.
    func recordOpenedURL(_ url: OpenedURL) async throws {
        _ = try await channel.invokeMethod(
            "openURL", arguments: ["url": .string(url.url), "opened": .bool(url.opened)])
    }

    /// Forwards an end a plugin decided in the worker (`ExtensionRequest.end`), without waiting.
    func forwardEnd(_ outcome: HostOutcome, returnedItems: StandardValue?, error: MethodError?) {
        Task { _ = try? await end(outcome, returnedItems: returnedItems, error: error) }
    }
}
