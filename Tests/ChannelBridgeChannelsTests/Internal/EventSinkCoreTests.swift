@testable import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Dispatch
import Testing

/// `EventSinkCore`: a drainer posts its batch outside the sink's lock, so an end of stream asked
/// for meanwhile must wait for it rather than be posted at once.
@Suite struct EventSinkCoreTests {
    @Test func anEndAskedForWhileADrainerPostsFollowsTheEventsItTook() async throws {
        let messenger = PausingMessenger()
        let codec = StandardMethodCodec()
        let sink = EventSinkCore(channel: "test/sink", messenger: messenger, codec: codec)
        // Held back until the sink opens, as before a `listen` reply.
        sink.send(.int64(1))
        sink.send(.int64(2))
        try await withHangGuard {
            // The drainer takes both events and stops inside its first post.
            async let drained: Void = onThread { sink.open() }
            await messenger.firstPostStarted.wait()
            sink.close(endingStream: true)
            messenger.resumePosting()
            await drained
        }
        let expected: [[UInt8]?] = [
            try codec.encodeSuccessEnvelope(.int64(1)), try codec.encodeSuccessEnvelope(.int64(2)), nil,
        ]
        #expect(messenger.posted == expected, "the end of stream must follow the events the drainer took")
        #expect(!sink.isActive)
    }

    @Test func anEndAskedForBeforeTheSinkOpensFollowsTheReplyAlone() {
        let messenger = PausingMessenger()
        messenger.resumePosting()
        let sink = EventSinkCore(channel: "test/sink", messenger: messenger, codec: StandardMethodCodec())
        sink.send(.int64(1))
        sink.close(endingStream: true)
        #expect(messenger.posted.isEmpty, "nothing goes out before the sink opens (after the listen reply)")
        sink.open()
        // What waited is dropped; the end goes out once the sink opens.
        #expect(messenger.posted == [nil])
        sink.send(.int64(2))
        #expect(messenger.posted == [nil])
    }
}

/// Records posts; the first one waits in `post` until `resumePosting()`.
private final class PausingMessenger: BinaryMessenger {
    let firstPostStarted = Gate()
    private let resume = DispatchSemaphore(value: 0)
    private let state = LockedValue<[[UInt8]?]>([])

    var posted: [[UInt8]?] { state.withLock { $0 } }

    func resumePosting() {
        resume.signal()
    }

    func post(onChannel channel: String, message: [UInt8]?) throws {
        let first = state.withLock { posted -> Bool in
            posted.append(message)
            return posted.count == 1
        }
        guard first else { return }
        firstPostStarted.open()
        resume.wait()
    }

    nonisolated(nonsending) func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? { nil }

    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        MessageHandlerToken(channel: channel, id: 0)
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {}

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {}
}
