import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

private typealias Support = ChannelsOverSocket

/// This process is the host; the peer process connects to it and is killed with SIGKILL.
@Suite(.serialized) struct ChannelsOverSocketKillTests {
    @Test func killingThePeerFailsEveryPendingCallAndTheHostGoesOn() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard { () async throws in
            let sessions = Inbox<SocketConnection>()
            let ticks = Support.TestTicks()
            let listener = try SocketListener(path: directory.path + "/host.sock") { connection in
                Support.serveTestChannels(on: connection, ticks: ticks)
                sessions.put(connection)
            }
            let victim = try await Support.Peer.start("connect", path: listener.path)
            let session = await sessions.next()
            let methods = MethodChannel(name: "peer/methods", messenger: session.messenger)
            #expect(try await methods.invokeMethod("pid") == .int(victim.pid))

            // The peer listens to this process's event stream and holds it open.
            let hold = Support.map([("channel", .string("test/events")), ("arguments", .string("held"))])
            #expect(
                try await methods.invokeMethod("listenAndHold", arguments: hold)
                    == .list([.string("success"), .string("open")]))
            #expect(await ticks.calls.next() == .listen(.string("held")))

            // Calls that will never be answered.
            var pending: [(channel: String, method: String, task: Task<StandardValue, any Error>)] = []
            for n in 0..<20 {
                pending.append(("peer/methods", "hang", Task { try await methods.invokeMethod("hang") }))
                pending.append(
                    (
                        "peer/methods", "delayedEcho",
                        Task {
                            try await methods.invokeMethod(
                                "delayedEcho", arguments: .list([.int32(Int32(n)), .int32(3_600_000)]))
                        }
                    ))
            }
            // FIFO per channel: once this is answered, every hang and delayedEcho has reached the peer.
            #expect(try await methods.invokeMethod("echo", arguments: .int32(1)) == .int32(1))

            victim.kill()
            for call in pending {
                let result = await call.task.result
                guard case .failure(let error as ChannelError) = result else {
                    Issue.record("\(call.method) ended with \(result), not connectionClosed")
                    continue
                }
                #expect(error.code == .connectionClosed)
                #expect(error.channel == call.channel)
                #expect(error.method == call.method)
            }
            // The connection's end cancelled the stream the dead peer was listening to.
            #expect(await ticks.calls.next() == .cancel(.string("held")))
            #expect(await victim.waitForExit() != 0)

            // The host goes on serving: a new peer connects and is served, both ways.
            let survivor = try await Support.Peer.start("connect", path: listener.path)
            let next = await sessions.next()
            let nextMethods = MethodChannel(name: "peer/methods", messenger: next.messenger)
            #expect(try await nextMethods.invokeMethod("pid") == .int(survivor.pid))
            #expect(
                try await nextMethods.invokeMethod(
                    "callBack", arguments: Support.map([("method", .string("hello")), ("arguments", .string("again"))]))
                    == .string("hello, again, from the test process"))
            // And calls on the dead session fail at once instead of hanging.
            let late = try await #require(throws: ChannelError.self) { try await methods.invokeMethod("echo") }
            #expect(late.code == .connectionClosed && late.method == "echo")

            next.close()
            await survivor.stop()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}
