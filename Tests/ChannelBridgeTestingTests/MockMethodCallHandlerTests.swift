import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let battery = "example/battery"
private let getLevelCall = hex("07 08") + utf8("getLevel") + hex("00")

/// `setMockMethodCallHandler`: the test answers the method calls of the code under test.
@Suite struct MockMethodCallHandlerTests {
    @Test func answersWithTheHandlersResultOnTheWire() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let seen = Collector<MethodCall>()
        test.setMockMethodCallHandler(channel: battery) { call in
            seen.append(call)
            return 87
        }
        let channel = MethodChannel(name: battery, messenger: test.messenger)
        try await withHangGuard { () async throws in
            #expect(try await channel.invokeMethod("getLevel") == .int32(87))
        }
        #expect(seen.all == [MethodCall("getLevel")])
        let records = test.recorder.records
        #expect(records.count == 1)
        #expect(records.first?.direction == .sent)
        #expect(records.first?.kind == .request)
        #expect(records.first?.payload == getLevelCall)
        #expect(records.first?.reply == .payload(hex("00 03 57000000"), envelope: .success(.int32(87))))
    }

    @Test func methodErrorIsAnErrorEnvelope() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockMethodCallHandler(channel: battery) { _ in
            throw MethodError(code: "LOW", message: "battery low")
        }
        let channel = MethodChannel(name: battery, messenger: test.messenger)
        try await withHangGuard { () async throws in
            await #expect(throws: MethodError(code: "LOW", message: "battery low")) {
                try await channel.invokeMethod("getLevel")
            }
        }
        let expectedBytes = hex("01") + standardString("LOW") + standardString("battery low") + hex("00")
        #expect(
            test.recorder.replies(on: battery)
                == [.payload(expectedBytes, envelope: .error(MethodError(code: "LOW", message: "battery low")))])
    }

    @Test func notImplementedIsANullReply() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockMethodCallHandler(channel: battery) { call in
            guard call.method == "getLevel" else { throw MethodNotImplemented() }
            return 50
        }
        let channel = MethodChannel(name: battery, messenger: test.messenger)
        try await withHangGuard { () async throws in
            do {
                _ = try await channel.invokeMethod("getVoltage")
                Issue.record("getVoltage should not be implemented")
            } catch let error as ChannelError {
                #expect(error.code == .notImplemented)
                #expect(error.method == "getVoltage")
                #expect(error.channel == battery)
            }
        }
        #expect(test.recorder.calls(on: battery).map(\.method) == ["getVoltage"])
        #expect(test.recorder.replies(on: battery) == [.null])
    }

    @Test func otherErrorsAreErrorEnvelopesWithCodeError() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "the sensor is broken" } }
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockMethodCallHandler(channel: battery) { _ in throw Broken() }
        let channel = MethodChannel(name: battery, messenger: test.messenger)
        try await withHangGuard { () async throws in
            await #expect(throws: MethodError(code: "error", message: "the sensor is broken")) {
                try await channel.invokeMethod("getLevel")
            }
        }
    }

    @Test func nilRemovesTheMockAndReplacingTakesOver() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let channel = MethodChannel(name: battery, messenger: test.messenger)
        try await withHangGuard { () async throws in
            test.setMockMethodCallHandler(channel: battery) { _ in 1 }
            #expect(test.hasMockHandler(channel: battery))
            #expect(try await channel.invokeMethod("getLevel") == 1)
            test.setMockMethodCallHandler(channel: battery) { _ in 2 }
            #expect(try await channel.invokeMethod("getLevel") == 2)
            test.setMockMethodCallHandler(channel: battery, nil)
            #expect(!test.hasMockHandler(channel: battery))
            await #expect(throws: ChannelError.self) { try await channel.invokeMethod("getLevel") }
        }
        #expect(test.recorder.replies(on: battery).map { $0?.envelope } == [.success(1), .success(2), nil])
        #expect(test.recorder.replies(on: battery).last == .null)
    }

    @Test func withoutAMockTheCallIsNotImplemented() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let channel = MethodChannel(name: "example/nobody", messenger: test.messenger)
        try await withHangGuard { () async throws in
            do {
                _ = try await channel.invokeMethod("hello")
                Issue.record("a channel without a mock should not answer")
            } catch let error as ChannelError {
                #expect(error.code == .notImplemented)
            }
        }
        #expect(test.recorder.replies(on: "example/nobody") == [.null])
    }

    @Test func aJSONCodecIsUsedOnTheWireAndForDecodingRecords() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockMethodCallHandler(channel: battery, codec: JSONMethodCodec()) { call in
            .string("level for \(call.arguments["unit"]?.stringValue ?? "?")")
        }
        let channel = MethodChannel(name: battery, messenger: test.messenger, codec: JSONMethodCodec())
        try await withHangGuard { () async throws in
            #expect(try await channel.invokeMethod("getLevel", arguments: ["unit": "percent"]) == "level for percent")
        }
        let record = try #require(test.recorder.records.first)
        #expect(record.payload == utf8(#"{"method":"getLevel","args":{"unit":"percent"}}"#))
        #expect(record.call == MethodCall("getLevel", arguments: ["unit": "percent"]))
        #expect(record.reply == .payload(utf8(#"["level for percent"]"#), envelope: .success("level for percent")))
    }

    @Test func theHandlerRunsOverARealConnection() async throws {
        // Limits of the real messenger apply: an empty channel name is refused before sending.
        let test = TestMessenger(role: .client)
        defer { test.close() }
        try await withHangGuard { () async throws in
            do {
                _ = try await test.messenger.send(onChannel: "", message: [1])
                Issue.record("an empty channel name should be refused")
            } catch let error as MessengerError {
                #expect(error.code == .invalidChannel)
            }
        }
        #expect(test.recorder.replies(on: "").count == 1)
        guard case .failed(let error)?? = test.recorder.replies(on: "").first else {
            Issue.record("the refused send should be recorded as failed")
            return
        }
        #expect(error.code == .invalidChannel)
    }
}
