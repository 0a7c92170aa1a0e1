import ChannelBridgeBytes
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Glibc
import Testing

/// A synchronous method-call handler runs on the connection's reader thread, as the request is
/// read, with no task started for it.
@Suite struct SynchronousHandlerOverSocketTests {
    @Test func runsOnTheReaderThreadWithoutATask() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let listener = try SocketListener(path: directory.path + "/h.sock") { connection in
                // An async handler's synchronous part starts on the reader thread too: it names it.
                MethodChannel(name: "thread", messenger: connection.messenger).setMethodCallHandler { _ in
                    .int(Int(bitPattern: UInt(pthread_self())))
                }
                MethodChannel(name: "sync", messenger: connection.messenger).setSynchronousMethodCallHandler { _ in
                    .list([.int(Int(bitPattern: UInt(pthread_self()))), .bool(withUnsafeCurrentTask { $0 != nil })])
                }
            }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let reader = try await MethodChannel(name: "thread", messenger: client.messenger).invokeMethod("which")
            for _ in 0..<3 {
                let answer = try await MethodChannel(name: "sync", messenger: client.messenger).invokeMethod("which")
                #expect(answer == .list([reader, .bool(false)]))
            }
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// An immediate handler runs on the reader thread with no task when it answers at
    /// once, and only its `.later` work runs in a task. An answer given at once hands its handler
    /// slot back at once: with one slot, 50 requests in one write are all answered (a slot kept
    /// would hold the second request unread for good).
    @Test func immediateAnswersNeedNoTaskAndGiveTheirSlotBack() async throws {
        try await withHangGuard { () async throws in
            let options = SocketListener.Options(connection: .init(maxHandlersInFlight: 1))
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                connection.messenger.installHandler(onChannel: "immediate", mayAnswerLater: true) { request, _ in
                    let message = request.array
                    let inTask: UInt8 = withUnsafeCurrentTask { $0 != nil } ? 1 : 0
                    guard message == [2] else { return .payload(Payload([message?.first ?? 0, inTask])) }
                    return .later(
                        LaterWork { HandlerReply(Payload([2, withUnsafeCurrentTask { $0 != nil } ? 1 : 0])) })
                }
            }
            defer { directory.remove() }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            let count = 50
            try peer.write(
                [RawPeer.hello()]
                    + (1...count).map {
                        .request(id: UInt32($0), channel: "immediate", payload: [$0 == 2 ? 2 : 1])
                    })
            let frames = try await onThread { Result { try peer.readFrames(1 + count) } }.get()
            var replies: [UInt32: Frame.Reply] = [:]
            for case .reply(let id, let result) in frames { replies[id] = result }
            #expect(replies.count == count)
            for id in 1...UInt32(count) {
                // [what was asked, whether a task ran the answer]
                #expect(replies[id] == .bytes(id == 2 ? [2, 1] : [1, 0]), "reply \(id)")
            }
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A Standard-codec channel's immediate handler on a socket session is answered in place: a
    /// result at hand on the reader thread with no task, `.later` work in a task that holds the
    /// session's one handler slot, so the requests behind it wait unread (their handler is not
    /// even asked) until that work has answered; then they are answered in order.
    @Test func immediateMethodCallsAnswerInPlaceAndLaterWorkHoldsTheSlot() async throws {
        try await withHangGuard { () async throws in
            let gate = Gate()
            let asked = Collector<String>(name: "calls the immediate handler was asked")
            let accepted = Collector<SocketConnection>(name: "accepted sessions")
            let options = SocketListener.Options(connection: .init(maxHandlersInFlight: 1))
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                accepted.append(connection)
                MethodChannel(name: "imm", messenger: connection.messenger).setImmediateMethodCallHandler { call in
                    asked.append(call.method)
                    guard call.method == "later" else { return .value(.bool(withUnsafeCurrentTask { $0 != nil })) }
                    return .later {
                        await gate.wait()
                        return .bool(withUnsafeCurrentTask { $0 != nil })
                    }
                }
            }
            defer { directory.remove() }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            let codec = StandardMethodCodec()
            let methods = ["now", "later", "later", "now"]
            try peer.write(
                [RawPeer.hello()]
                    + methods.enumerated().map { index, method in
                        .request(
                            id: UInt32(index + 1), channel: "imm",
                            payload: try codec.encodeMethodCall(MethodCall(method)))
                    })
            let session = try await accepted.first(1)[0]
            await session.messenger.waitUntilInputHeld()
            #expect(asked.all == ["now", "later"])
            gate.open()
            let frames = try await onThread { Result { try peer.readFrames(1 + methods.count) } }.get()
            #expect(asked.all == methods)
            #expect(
                Array(frames.dropFirst()) == [
                    .reply(id: 1, result: .bytes(try codec.encodeSuccessEnvelope(.bool(false)))),
                    .reply(id: 2, result: .bytes(try codec.encodeSuccessEnvelope(.bool(true)))),
                    .reply(id: 3, result: .bytes(try codec.encodeSuccessEnvelope(.bool(true)))),
                    .reply(id: 4, result: .bytes(try codec.encodeSuccessEnvelope(.bool(false)))),
                ])
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}
