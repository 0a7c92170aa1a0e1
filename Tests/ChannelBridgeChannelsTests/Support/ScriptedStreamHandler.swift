import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeTestSupport

/// A stream handler whose behaviour a test scripts, and which reports every call in order.
final class ScriptedStreamHandler: StreamHandler {
    enum Call: Sendable, Equatable {
        case listen(StandardValue)
        case cancel(StandardValue)
    }

    let calls = Inbox<Call>()
    private let sinks = LockedValue<[EventSink]>([])
    private let listenBody: @Sendable (StandardValue, EventSink) async throws -> Void
    private let cancelBody: @Sendable (StandardValue) async throws -> Void

    init(
        onListen: @escaping @Sendable (StandardValue, EventSink) async throws -> Void = { _, _ in },
        onCancel: @escaping @Sendable (StandardValue) async throws -> Void = { _ in }
    ) {
        listenBody = onListen
        cancelBody = onCancel
    }

    /// The sinks handed to `onListen`, in order.
    var allSinks: [EventSink] {
        sinks.withLock { $0 }
    }

    func onListen(arguments: StandardValue, events: EventSink) async throws {
        calls.put(.listen(arguments))
        sinks.withLock { $0.append(events) }
        try await listenBody(arguments, events)
    }

    func onCancel(arguments: StandardValue) async throws {
        calls.put(.cancel(arguments))
        try await cancelBody(arguments)
    }
}
