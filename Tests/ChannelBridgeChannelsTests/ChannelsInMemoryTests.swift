import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// Channels over a real pair of `MessengerConnection`s joined in memory through the real frame
/// encoder and decoder.
@Suite struct ChannelsInMemoryTests {
    @Test func methodCallsBothWays() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let hostChannel = MethodChannel(name: "test/both", messenger: host)
        let clientChannel = MethodChannel(name: "test/both", messenger: client)
        hostChannel.setMethodCallHandler { call in
            // The host calls back into the client while answering.
            let name = try await hostChannel.invokeMethod("name")
            return .list([.string(call.method), name])
        }
        clientChannel.setMethodCallHandler { _ in .string("client") }
        try await withHangGuard { () async throws in
            #expect(try await clientChannel.invokeMethod("hello") == .list([.string("hello"), .string("client")]))
        }
    }

    @Test func everyOutcomeCrossesTheWire() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        MethodChannel(name: "test/outcomes", messenger: host).setMethodCallHandler { call in
            switch call.method {
            case "value": return call.arguments
            case "error": throw MethodError(code: "E", message: "m", details: .int32(1), stacktrace: "st")
            case "boom": throw Boom()
            default: throw MethodNotImplemented()
            }
        }
        let channel = MethodChannel(name: "test/outcomes", messenger: client)
        try await withHangGuard { () async throws in
            #expect(try await channel.invokeMethod("value", arguments: .uint8List([1, 2])) == .uint8List([1, 2]))
            await #expect(throws: MethodError(code: "E", message: "m", details: .int32(1), stacktrace: "st")) {
                try await channel.invokeMethod("error")
            }
            await #expect(throws: MethodError(code: "error", message: "boom")) {
                try await channel.invokeMethod("boom")
            }
            let missing = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("other") }
            #expect(missing.code == .notImplemented && missing.method == "other" && missing.channel == "test/outcomes")
            let noHandler = try await #require(throws: ChannelError.self) {
                try await MethodChannel(name: "test/nobody", messenger: client).invokeMethod("x")
            }
            #expect(noHandler.code == .notImplemented && noHandler.channel == "test/nobody")
        }
    }

    @Test func undecodableCallGetsMalformedAndTheConnectionStaysUp() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let channel = MethodChannel(name: "test/malformed", messenger: host)
        channel.setMethodCallHandler { _ in .string("fine") }
        try await withHangGuard { () async throws in
            let reply = try #require(try await client.send(onChannel: "test/malformed", message: [0x07, 0x09]))
            guard case .error(let error) = try StandardMethodCodec().decodeEnvelope(reply) else {
                Issue.record("expected an error envelope")
                return
            }
            #expect(error.code == "malformed")
            let nullReply = try #require(try await client.send(onChannel: "test/malformed", message: nil))
            guard case .error(let nullError) = try StandardMethodCodec().decodeEnvelope(nullReply) else {
                Issue.record("expected an error envelope")
                return
            }
            #expect(nullError.code == "malformed")
            #expect(
                try await MethodChannel(name: "test/malformed", messenger: client).invokeMethod("ok") == .string("fine")
            )
        }
    }

    @Test func concurrentCallsWithOutOfOrderRepliesAreMatched() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        MethodChannel(name: "test/concurrent", messenger: host).setMethodCallHandler { call in
            guard case .int32(let n) = call.arguments else { throw MethodError(code: "WRONG_TYPE") }
            // Later calls often finish first.
            if n % 3 == 0 { try await Task.sleep(for: .milliseconds(Int(n % 7))) } else { await Task.yield() }
            return .int32(n * 2)
        }
        let channel = MethodChannel(name: "test/concurrent", messenger: client)
        try await withHangGuard { () async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<20 {
                    group.addTask {
                        for k in 0..<50 {
                            let n = Int32(worker * 50 + k)
                            let result = try await channel.invokeMethod("double", arguments: .int32(n))
                            #expect(result == .int32(n * 2))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func callsOnOneChannelArriveInOrder() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let arrivals = LockedValue<[Int32]>([])
        MethodChannel(name: "test/fifo", messenger: host).setMethodCallHandler { call in
            guard case .int32(let n) = call.arguments else { throw MethodError(code: "WRONG_TYPE") }
            arrivals.withLock { $0.append(n) }  // before any suspension: arrival order
            if n % 2 == 0 { try await Task.sleep(for: .milliseconds(1)) }
            return .int32(n)
        }
        let channel = MethodChannel(name: "test/fifo", messenger: client)
        try await withHangGuard { () async throws in
            // Task.immediate writes each REQUEST before the next task is created: send order is known.
            var calls: [Task<StandardValue, any Error>] = []
            for n in 0..<500 {
                calls.append(Task.immediate { try await channel.invokeMethod("n", arguments: .int32(Int32(n))) })
            }
            for (n, call) in calls.enumerated() {
                #expect(try await call.value == .int32(Int32(n)))
            }
            #expect(arrivals.withLock { $0 } == (0..<500).map(Int32.init))
        }
    }

    @Test func basicMessagesWithEachCodec() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        BasicMessageChannel(name: "s", messenger: host, codec: StringCodec()).setMessageHandler { $0.map { $0 + "!" } }
        BasicMessageChannel(name: "b", messenger: host, codec: BinaryCodec()).setMessageHandler { $0?.reversed() }
        BasicMessageChannel(name: "std", messenger: host, codec: StandardMessageCodec()).setMessageHandler { $0 }
        BasicMessageChannel(name: "j", messenger: host, codec: JSONMessageCodec()).setMessageHandler { $0 }
        try await withHangGuard { () async throws in
            #expect(
                try await BasicMessageChannel(name: "s", messenger: client, codec: StringCodec()).send("hi") == "hi!")
            let binary = BasicMessageChannel(name: "b", messenger: client, codec: BinaryCodec())
            #expect(try await binary.send([1, 2, 3]) == [3, 2, 1])
            #expect(try await binary.send([]) == [])
            #expect(try await binary.send(nil) == nil)
            let value: StandardValue = .map(["k": .list([.int32(1), .float64(2.5), .null])])
            #expect(
                try await BasicMessageChannel(name: "std", messenger: client, codec: StandardMessageCodec()).send(value)
                    == value)
            #expect(
                try await BasicMessageChannel(name: "j", messenger: client, codec: JSONMessageCodec()).send(value)
                    == value)
        }
    }

    @Test func closingFailsPendingCallsWithTheirMethod() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        let entered = Inbox<Void>()
        MethodChannel(name: "test/hang", messenger: host).setMethodCallHandler { _ in
            entered.put(())
            try await untilCancelled()
            return .null
        }
        let channel = MethodChannel(name: "test/hang", messenger: client)
        try await withHangGuard { () async throws in
            let calls = (0..<10).map { n in Task { try await channel.invokeMethod("wait\(n)") } }
            for _ in 0..<10 { await entered.next() }  // all ten are pending on the host
            client.close(waitForOwedReplies: false)
            host.close(waitForOwedReplies: false)
            for (n, call) in calls.enumerated() {
                let error = try await #require(throws: ChannelError.self) { try await call.value }
                #expect(error.code == .connectionClosed)
                #expect(error.channel == "test/hang")
                #expect(error.method == "wait\(n)")
            }
        }
    }

    @Test func timeoutCancelsTheHandlerOnTheOtherSide() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let cancelled = Inbox<Bool>()
        MethodChannel(name: "test/slow", messenger: host).setMethodCallHandler { _ in
            do {
                try await untilCancelled()
            } catch {
                cancelled.put(true)
                throw error
            }
            return .null
        }
        let channel = MethodChannel(name: "test/slow", messenger: client)
        try await withHangGuard { () async throws in
            let error = try await #require(throws: ChannelError.self) {
                try await channel.invokeMethod("slow", timeout: .milliseconds(20))
            }
            #expect(error.code == .timedOut && error.method == "slow")
            #expect(await cancelled.next())  // the CANCEL frame reached the host and cancelled its handler
        }
    }
}
