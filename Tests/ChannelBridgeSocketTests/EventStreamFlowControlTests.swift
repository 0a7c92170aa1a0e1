import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Synchronization
import Testing

/// Event streams whose listener does not read (wire protocol §4.10 rule 5), over real sockets: the
/// listener is a raw socket that reads only once the producer is done or waiting.
@Suite struct EventStreamFlowControlTests {
    static let channel = "test/flood"
    static let eventSize = 8 << 10

    /// Produces events from a task of its own in the way `produce` says; reports when it is done
    /// and when the stream was cancelled.
    final class Producer: StreamHandler {
        let produce: @Sendable (EventSink) async -> Void
        let done = Collector<Int>(name: "producers done")
        let cancelled = Collector<StandardValue>(name: "cancels")

        init(_ produce: @escaping @Sendable (EventSink) async -> Void) {
            self.produce = produce
        }

        func onListen(arguments: StandardValue, events: EventSink) async throws {
            let (produce, done) = (self.produce, self.done)
            Task {
                await produce(events)
                done.append(1)
            }
        }

        func onCancel(arguments: StandardValue) async throws {
            cancelled.append(arguments)
        }
    }

    /// A host with small water marks serving `producer` on `channel`, a raw listener that sent
    /// `listen` and reads nothing yet, and the host's side of that connection.
    static func serve(
        _ producer: Producer, maxBufferedBytes: Int
    )
        async throws -> (listener: SocketListener, directory: TestDirectory, peer: RawPeer, host: SocketConnection)
    {
        let accepted = Collector<SocketConnection>()
        let options = SocketListener.Options(connection: .init(outboundHighWater: 64 << 10, outboundLowWater: 16 << 10))
        let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
            accepted.append(connection)
            EventChannel(name: channel, messenger: connection.messenger)
                .setStreamHandler(producer, maxBufferedBytes: maxBufferedBytes)
        }
        let peer = try RawPeer(path: listener.path)
        let listen = try StandardMethodCodec().encodeMethodCall(MethodCall("listen", arguments: "flood"))
        try peer.write([RawPeer.hello(), .request(id: 1, channel: channel, payload: listen)])
        return (listener, directory, peer, try await accepted.first(1)[0])
    }

    /// The listener's view: the listen reply, then each MESSAGE decoded (nil for the end).
    static func events(_ frames: [Frame]) throws -> (reply: Frame?, events: [MethodEnvelope?]) {
        let codec = StandardMethodCodec()
        var events: [MethodEnvelope?] = []
        for case .message(channel, let payload) in frames {
            events.append(try payload.map { try codec.decodeEnvelope($0) })
        }
        return (frames.dropFirst().first, events)
    }

    static func isEnd(_ frame: Frame) -> Bool {
        if case .message(_, nil) = frame { return true }
        return false
    }

    @Test func aStreamWhoseListenerFallsTooFarBehindEndsWithItsTypedError() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let produced = Atomic<Int>(0)
            let producer = Producer { events in
                // The first event waits for the listen reply to be out; then plain success, which
                // never waits, until the stream is no longer active.
                var index = 1
                guard await events.send(.uint8List([UInt8](repeating: 0, count: Self.eventSize))) else { return }
                while events.isActive {
                    events.success(.uint8List([UInt8](repeating: UInt8(index & 0xFF), count: Self.eventSize)))
                    index += 1
                }
                produced.store(index, ordering: .relaxed)
            }
            let (listener, directory, peer, _) = try await Self.serve(producer, maxBufferedBytes: 64 << 10)
            defer { directory.remove() }
            // The owner cancels the stream itself: a listener that does not read may never do so.
            #expect(try await producer.cancelled.first(1) == ["flood"])
            try await producer.done.first(1)
            let frames = try await onThread { Result { try peer.readFrames(until: Self.isEnd) } }.get()
            peer.close()
            let (reply, events) = try Self.events(frames)
            #expect(reply == .reply(id: 1, result: .bytes([0, 0])))
            // Events in order up to the overflow, then STREAM_OVERFLOW naming the channel, then the end.
            try #require(events.count >= 3)
            let successes = events.dropLast(2)
            #expect(
                successes.enumerated().allSatisfy { index, event in
                    event == .success(.uint8List([UInt8](repeating: UInt8(index & 0xFF), count: Self.eventSize)))
                })
            #expect(successes.count < produced.load(ordering: .relaxed))
            guard case .error(let overflow)?? = events.dropLast().last else {
                Issue.record("no error event before the end: \(String(describing: events.dropLast().last))")
                return
            }
            #expect(overflow.code == EventChannel.overflowErrorCode)
            #expect(overflow.message?.contains("channel \(Self.channel)") == true)
            #expect(overflow.details["channel"] == .string(Self.channel))
            #expect(overflow.details["limit"] == .int64(64 << 10))
            #expect(events.last == .some(nil))
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func coalescedEventsKeepOnlyTheLatestPerKeyWhileTheListenerIsBehind() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let count = 600, keys = 4
            let producer = Producer { events in
                for index in 0..<count {
                    let key = "k\(index % keys)"
                    events.success(
                        [
                            "key": .string(key), "n": .int64(Int64(index)),
                            "pad": .uint8List([UInt8](repeating: 0, count: Self.eventSize)),
                        ], coalescingKey: key)
                }
                events.endOfStream()
            }
            let (listener, directory, peer, _) = try await Self.serve(producer, maxBufferedBytes: 1 << 20)
            defer { directory.remove() }
            try await producer.done.first(1)
            let frames = try await onThread { Result { try peer.readFrames(until: Self.isEnd) } }.get()
            peer.close()
            let (_, events) = try Self.events(frames)
            #expect(events.last == .some(nil))
            var latest: [String: Int64] = [:]
            var received = 0
            for case .success(let value)?? in events {
                guard let key = value["key"]?.stringValue, case .int64(let n)? = value["n"] else { continue }
                #expect(n > latest[key] ?? -1, "events of one key arrive in order")
                latest[key] = n
                received += 1
            }
            // Every key's last event is its latest value; most of the others were replaced.
            #expect(latest == ["k0": 596, "k1": 597, "k2": 598, "k3": 599])
            #expect(received < count)
            #expect(!events.contains { if case .error? = $0 { true } else { false } })
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// Coalescing keys are told apart by code units: "caf\u{E9}" and "cafe\u{301}", one `String`
    /// to Swift's `==`, each keep their own latest event.
    @Test func canonicallyEquivalentCoalescingKeysAreTwoKeys() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let count = 600
            let spellings = ["caf\u{E9}", "cafe\u{301}"]
            let producer = Producer { events in
                for index in 0..<count {
                    let key = spellings[index % 2]
                    events.success(
                        [
                            "key": .string(key), "n": .int64(Int64(index)),
                            "pad": .uint8List([UInt8](repeating: 0, count: Self.eventSize)),
                        ], coalescingKey: key)
                }
                events.endOfStream()
            }
            let (listener, directory, peer, _) = try await Self.serve(producer, maxBufferedBytes: 1 << 20)
            defer { directory.remove() }
            try await producer.done.first(1)
            let frames = try await onThread { Result { try peer.readFrames(until: Self.isEnd) } }.get()
            peer.close()
            let (_, events) = try Self.events(frames)
            #expect(events.last == .some(nil))
            var latest: [[UInt8]: Int64] = [:]
            var received = 0
            for case .success(let value)?? in events {
                guard case .string(let key)? = value["key"], case .int64(let n)? = value["n"] else { continue }
                latest[Array(key.utf8)] = n
                received += 1
            }
            #expect(latest == [Array(spellings[0].utf8): 598, Array(spellings[1].utf8): 599])
            #expect(received < count)
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aProducerThatAwaitsSendWaitsForTheListenerAndNeverOverflows() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let count = 300
            let producer = Producer { events in
                for index in 0..<count {
                    guard await events.send(.uint8List([UInt8](repeating: UInt8(index & 0xFF), count: Self.eventSize)))
                    else { return }
                }
                events.endOfStream()
            }
            // A buffer of two events only: a producer that did not wait would overflow it at once.
            let (listener, directory, peer, host) = try await Self.serve(producer, maxBufferedBytes: 2 * Self.eventSize)
            defer { directory.remove() }
            await host.outboundFlow.waitUntil { $0.waitingWriters >= 1 }
            #expect(producer.done.count == 0)
            let frames = try await onThread { Result { try peer.readFrames(until: Self.isEnd) } }.get()
            peer.close()
            let (_, events) = try Self.events(frames)
            #expect(events.count == count + 1)
            #expect(
                events.dropLast().enumerated().allSatisfy { index, event in
                    event == .success(.uint8List([UInt8](repeating: UInt8(index & 0xFF), count: Self.eventSize)))
                })
            #expect(events.last == .some(nil))
            try await producer.done.first(1)
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aListenerWhoseConsumerStopsTakingEventsEndsWithItsTypedErrorAndCancels() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let producer = Producer { events in
                var index = 0
                while await events.send(.uint8List([UInt8](repeating: UInt8(index & 0xFF), count: Self.eventSize))) {
                    index += 1
                }
            }
            let (listener, directory) = try SocketConnectionTests.serve { connection in
                EventChannel(name: Self.channel, messenger: connection.messenger).setStreamHandler(producer)
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let stream = EventChannel(name: Self.channel, messenger: client.messenger)
                .receiveBroadcastStream(arguments: "flood", maxBufferedBytes: 64 << 10)
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() != nil)
            // The consumer takes nothing more: the listener ends the stream and cancels it.
            #expect(try await producer.cancelled.first(1) == ["flood"])
            var taken = 1
            do {
                while let event = try await iterator.next() {
                    #expect(
                        event == .success(.uint8List([UInt8](repeating: UInt8(taken & 0xFF), count: Self.eventSize))))
                    taken += 1
                }
                Issue.record("the stream ended without an error after \(taken) events")
            } catch let error as ChannelError {
                #expect(error.code == .streamOverflow)
                #expect(error.channel == Self.channel)
                // What waited was at most the limit and one event more.
                #expect((taken - 1) * (Self.eventSize + 3) <= (64 << 10) + Self.eventSize + 3)
            }
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}
