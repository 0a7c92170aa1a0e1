import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// The recorder on its own: order, directions, withdrawn requests, decoding, transcript.
@Suite struct MessageRecorderTests {
    @Test func recordsBothDirectionsInOrderWithSequenceNumbers() async throws {
        let test = TestMessenger()
        defer { test.close() }
        // The code under test answers "ask" by first asking the test's side something itself.
        let channel = MethodChannel(name: "example/chain", messenger: test.messenger)
        channel.setMethodCallHandler { call in
            let answer = try await channel.invokeMethod("lookup", arguments: call.arguments)
            return .string("looked up \(answer.stringValue ?? "?")")
        }
        test.setMockMethodCallHandler(channel: "example/chain") { call in
            .string("<\(call.arguments.stringValue ?? "")>")
        }
        try await withHangGuard { () async throws in
            #expect(
                try await test.invokeMethod(channel: "example/chain", method: "ask", arguments: "k") == "looked up <k>")
        }
        let records = test.recorder.records
        #expect(records.map(\.sequence) == [1, 2])
        #expect(records.map(\.direction) == [.received, .sent])
        #expect(records.map(\.method) == ["ask", "lookup"])
        #expect(records.map { $0.reply?.envelope } == [.success("looked up <k>"), .success("<k>")])
        #expect(
            test.recorder.transcript == """
                #1 received request example/chain ask("k") -> success("looked up <k>") [00\(Hex.encode(standardString("looked up <k>")))]
                #2 sent request example/chain lookup("k") -> success("<k>") [00\(Hex.encode(standardString("<k>")))]
                """)

        test.recorder.removeAll()
        #expect(test.recorder.records.isEmpty)
        try await withHangGuard { () async throws in
            _ = try await test.invokeMethod(channel: "example/chain", method: "ask", arguments: "again")
        }
        // Numbering goes on after removeAll.
        #expect(test.recorder.records.map(\.sequence) == [3, 4])
    }

    @Test func aWithdrawnRequestIsRecordedAsCancelled() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let (ended, didEnd) = AsyncStream.makeStream(of: Bool.self)
        test.setMockMethodCallHandler(channel: "example/slow") { _ in
            // Ends only when the caller withdraws the request, which cancels this task.
            do {
                try await untilCancelled()
            } catch {
                didEnd.yield(Task.isCancelled)
                throw error
            }
            return nil
        }
        let channel = MethodChannel(name: "example/slow", messenger: test.messenger)
        try await withHangGuard { () async throws in
            do {
                _ = try await channel.invokeMethod("wait", timeout: .milliseconds(20))
                Issue.record("the call should time out")
            } catch let error as ChannelError {
                #expect(error.code == .timedOut)
            }
            var iterator = ended.makeAsyncIterator()
            #expect(await iterator.next() == true)
        }
        #expect(test.recorder.replies(on: "example/slow") == [.cancelled])
        #expect(test.recorder.calls(on: "example/slow") == [MethodCall("wait")])
    }

    @Test func waitUntilReturnsOnceTheConditionHolds() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        try await withHangGuard { () async throws in
            let waiter = Task {
                await test.recorder.waitUntil { $0.contains { $0.channel == "example/late" } }
                return test.recorder.records.count
            }
            try test.messenger.post(onChannel: "example/late", message: [7])
            #expect(await waiter.value == 1)
        }
        // Already true: returns at once.
        await test.recorder.waitUntil { !$0.isEmpty }
        // A cancelled waiter returns without the condition holding.
        let never = Task { await test.recorder.waitUntil { _ in false } }
        never.cancel()
        try await withHangGuard { () async throws in await never.value }
    }

    @Test func decodingFollowsTheCodecSetForTheChannel() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let json = JSONMethodCodec()
        test.recorder.setCodec(json, forChannel: "example/json")
        test.setMockMessageHandler(channel: "example/json") { _ in try json.encodeSuccessEnvelope(true) }
        let channel = MethodChannel(name: "example/json", messenger: test.messenger, codec: json)
        try await withHangGuard { () async throws in
            #expect(try await channel.invokeMethod("ping") == true)
            // Bytes that decode with no codec are kept raw.
            _ = try await test.messenger.send(onChannel: "example/json", message: [0xFF])
        }
        let records = test.recorder.records
        #expect(records.map(\.call) == [MethodCall("ping"), nil])
        #expect(records.map(\.payload) == [utf8(#"{"method":"ping","args":null}"#), [0xFF]])
        #expect(records.first?.reply == .payload(utf8("[true]"), envelope: .success(true)))
    }
}
