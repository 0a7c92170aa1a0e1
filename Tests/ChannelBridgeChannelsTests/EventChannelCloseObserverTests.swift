import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// `BinaryMessenger.onClose` cannot unregister, so event channels register once per messenger:
/// a long-lived connection does not keep every `EventChannel` object ever made on it.
@Suite struct EventChannelCloseObserverTests {
    /// Forwards to a `RecordingMessenger` and counts `onClose` registrations.
    final class CountingMessenger: BinaryMessenger {
        let inner: RecordingMessenger
        let registrations = LockedValue(0)

        init(_ inner: RecordingMessenger) { self.inner = inner }

        nonisolated(nonsending) func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
            try await inner.send(onChannel: channel, message: message)
        }

        func post(onChannel channel: String, message: [UInt8]?) throws {
            try inner.post(onChannel: channel, message: message)
        }

        func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
            inner.setMessageHandler(onChannel: channel, handler)
        }

        func removeMessageHandler(_ token: MessageHandlerToken) {
            inner.removeMessageHandler(token)
        }

        func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
            registrations.withLock { $0 += 1 }
            inner.onClose(callback)
        }
    }

    @Test func manyChannelObjectsOnOneMessengerRegisterForItsEndOnce() async throws {
        let recording = RecordingMessenger { _, _ in [0x00, 0x00] }  // accepts listen and cancel
        let messenger = CountingMessenger(recording)
        try await withHangGuard { () async throws in
            for round in 0..<50 {
                let channel = EventChannel(name: "events/\(round % 5)", messenger: messenger)
                channel.setStreamHandler(ScriptedStreamHandler())
                let stream = channel.receiveBroadcastStream()
                // Two requests per round: listen, then the cancel the dropped stream sends.
                await recording.waitUntil { entries in
                    entries.filter { if case .request = $0 { true } else { false } }.count >= 2 * round + 1
                }
                _ = stream
            }
            #expect(messenger.registrations.withLock { $0 } == 1)
        }
    }

    @Test func aStreamWhoseChannelObjectIsGoneStillEndsWithTheConnection() async throws {
        let recording = RecordingMessenger { _, _ in [0x00, 0x00] }
        try await withHangGuard { () async throws in
            // The channel object is released at once; only the stream is kept.
            let stream = EventChannel(name: "events", messenger: recording).receiveBroadcastStream()
            await recording.waitUntil { $0.count >= 1 }
            recording.close()
            let error = try await #require(throws: ChannelError.self) {
                for try await _ in stream {}
            }
            #expect(error.code == .connectionClosed)
            #expect(error.channel == "events")
        }
    }
}
