import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channelName = "test/methods"

/// A handler that never answers until it is cancelled.
private let neverAnswers: RecordingMessenger.Responder = { _, _ in
    try await untilCancelled()
    return nil
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

@Suite struct MethodChannelInvokeTests {
    @Test func requestBytesAndSuccessValue() async throws {
        let messenger = RecordingMessenger { _, _ in hex("00 07 02 6f6b") }  // success "ok"
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let value = try await channel.invokeMethod("exit")
        #expect(value == .string("ok"))
        #expect(
            messenger.entries == [
                .request(channel: channelName, message: hex("07 04 65786974 00")),
                .reply(channel: channelName, reply: hex("00 07 02 6f6b")),
            ])
    }

    @Test func argumentsAreEncodedAfterTheName() async throws {
        let messenger = RecordingMessenger { _, _ in hex("00 00") }
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let value = try await channel.invokeMethod("add", arguments: .int32(5))
        #expect(value == .null)
        #expect(messenger.entries.first == .request(channel: channelName, message: hex("07 03 616464 03 05000000")))
    }

    @Test func errorEnvelopeThrowsMethodError() async throws {
        // code "E", message "bad", details 7 (int32)
        let messenger = RecordingMessenger { _, _ in hex("01 07 01 45 07 03 626164 03 07000000") }
        let channel = MethodChannel(name: channelName, messenger: messenger)
        await #expect(throws: MethodError(code: "E", message: "bad", details: .int32(7))) {
            try await channel.invokeMethod("exit")
        }
    }

    @Test func errorEnvelopeWithStacktrace() async throws {
        // code "E", message null, details null, stacktrace "st"
        let messenger = RecordingMessenger { _, _ in hex("01 07 01 45 00 00 07 02 7374") }
        let channel = MethodChannel(name: channelName, messenger: messenger)
        await #expect(throws: MethodError(code: "E", message: nil, details: .null, stacktrace: "st")) {
            try await channel.invokeMethod("exit")
        }
    }

    @Test func nullReplyIsNotImplementedNamingChannelAndMethod() async throws {
        let messenger = RecordingMessenger()  // no responder: null replies
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("getVersion") }
        #expect(error.code == .notImplemented)
        #expect(error.channel == channelName)
        #expect(error.method == "getVersion")
        #expect(error.message == "No implementation found for method getVersion on channel test/methods")
        #expect("\(error)".contains("getVersion") && "\(error)".contains(channelName))
    }

    @Test func undecodableReplyIsMalformedReply() async throws {
        let messenger = RecordingMessenger { _, _ in hex("05") }
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("exit") }
        #expect(error.code == .malformedReply)
        #expect(error.method == "exit")
        #expect(error.codecError?.code == .invalidEnvelope)
    }

    @Test func connectionClosedIsRethrownWithTheMethod() async throws {
        let messenger = RecordingMessenger(responder: neverAnswers)
        let channel = MethodChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let call = Task { try await channel.invokeMethod("exit") }
            await messenger.waitUntil { $0.count == 1 }
            messenger.close()
            let error = try await #require(throws: ChannelError.self) { try await call.value }
            #expect(error.code == .connectionClosed)
            #expect(error.channel == channelName)
            #expect(error.method == "exit")
        }
    }

    @Test func callsAfterCloseFailWithTheMethod() async throws {
        let messenger = RecordingMessenger()
        messenger.close()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("late") }
        #expect(error.code == .connectionClosed)
        #expect(error.method == "late")
    }

    @Test func handlerFailureIsRethrownWithTheMethod() async throws {
        let messenger = RecordingMessenger { _, _ in throw MessengerError(.handlerFailed, "it broke") }
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("exit") }
        // The channel's error, naming channel and method, with the messenger's own beneath it.
        #expect(error.code == .handlerFailed && error.channel == channelName && error.method == "exit")
        #expect(error.description == "handlerFailed on channel '\(channelName)' (method 'exit'): it broke")
        #expect(error.messengerError == MessengerError(.handlerFailed, "it broke"))
    }

    @Test func timeoutWithdrawsTheRequestAndNamesIt() async throws {
        let messenger = RecordingMessenger(responder: neverAnswers)
        let channel = MethodChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let error = try await #require(throws: ChannelError.self) {
                try await channel.invokeMethod("slow", timeout: .milliseconds(20))
            }
            #expect(error.code == .timedOut)
            #expect(error.channel == channelName)
            #expect(error.method == "slow")
            #expect(
                messenger.entries == [
                    .request(channel: channelName, message: hex("07 04 736c6f77 00")),
                    .cancel(channel: channelName),
                ])
            #expect(messenger.pendingRequestCount == 0)
        }
    }

    @Test func replyWithinTheTimeoutIsReturned() async throws {
        let messenger = RecordingMessenger { _, _ in hex("00 03 2a000000") }
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let value = try await channel.invokeMethod("fast", timeout: .seconds(600))
        #expect(value == .int32(42))
        #expect(!messenger.entries.contains(.cancel(channel: channelName)))
    }

    @Test func cancellingTheCallerWithdrawsTheRequest() async throws {
        let messenger = RecordingMessenger(responder: neverAnswers)
        let channel = MethodChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let call = Task { try await channel.invokeMethod("exit") }
            await messenger.waitUntil { $0.count == 1 }
            call.cancel()
            await #expect(throws: CancellationError.self) { try await call.value }
            #expect(messenger.entries.last == .cancel(channel: channelName))
        }
    }

    @Test func unencodableArgumentsSendNothing() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        let error = try await #require(throws: ChannelError.self) {
            try await channel.invokeMethod("put", arguments: .map([.init(.int32(1), .null)]))
        }
        #expect(error.code == .unencodable)
        #expect(error.method == "put")
        #expect(error.codecError?.code == .unencodable)
        #expect(messenger.entries.isEmpty)
    }

    @Test func jsonCodecBytes() async throws {
        let messenger = RecordingMessenger { _, _ in utf8(#"["done"]"#) }
        let channel = MethodChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        let value = try await channel.invokeMethod("exit", arguments: .map(["code": .int32(0)]))
        #expect(value == .string("done"))
        #expect(
            messenger.entries.first
                == .request(
                    channel: channelName,
                    message: utf8(#"{"method":"exit","args":{"code":0}}"#)))
    }

    @Test func jsonErrorEnvelope() async throws {
        let messenger = RecordingMessenger { _, _ in utf8(#"["E","msg",{"k":1}]"#) }
        let channel = MethodChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        await #expect(throws: MethodError(code: "E", message: "msg", details: .map(["k": .int32(1)]))) {
            try await channel.invokeMethod("exit")
        }
    }
}

@Suite struct MethodChannelHandlerTests {
    @Test func returnedValueIsASuccessEnvelope() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let calls = Inbox<MethodCall>()
        channel.setMethodCallHandler { call in
            calls.put(call)
            return .string("pong")
        }
        let reply = try await messenger.deliver(onChannel: channelName, message: hex("07 04 70696e67 03 01000000"))
        #expect(reply == hex("00 07 04 706f6e67"))
        #expect(calls.waiting == [MethodCall("ping", arguments: .int32(1))])
    }

    @Test func thrownMethodErrorIsAnErrorEnvelope() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        channel.setMethodCallHandler { _ in throw MethodError(code: "E", message: "bad", details: .bool(true)) }
        let reply = try await messenger.deliver(onChannel: channelName, message: hex("07 01 78 00"))
        #expect(reply == hex("01 07 01 45 07 03 626164 01"))
    }

    @Test func stacktraceIsTheFourthValue() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        channel.setMethodCallHandler { _ in throw MethodError(code: "E", stacktrace: "st") }
        let reply = try await messenger.deliver(onChannel: channelName, message: hex("07 01 78 00"))
        #expect(reply == hex("01 07 01 45 00 00 07 02 7374"))
    }

    @Test func notImplementedIsANullReply() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        channel.setMethodCallHandler { _ in throw MethodNotImplemented() }
        let reply = try await messenger.deliver(onChannel: channelName, message: hex("07 01 78 00"))
        #expect(reply == nil)
        #expect(messenger.entries == [.handlerReply(channel: channelName, reply: nil)])
    }

    @Test func otherErrorsAreCodeErrorWithTheirDescription() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        channel.setMethodCallHandler { _ in throw Boom() }
        let reply = try await messenger.deliver(onChannel: channelName, message: hex("07 01 78 00"))
        #expect(reply == hex("01 07 05 6572726f72 07 04 626f6f6d 00"))
    }

    @Test func undecodableCallIsMalformedAndSkipsTheHandler() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        let calls = Inbox<MethodCall>()
        channel.setMethodCallHandler { call in
            calls.put(call)
            return .null
        }
        let bad = hex("07 09 61")  // a name that claims 9 bytes and has 1
        let expectedMessage: String
        do {
            _ = try StandardMethodCodec().decodeMethodCall(bad)
            Issue.record("the bad call decoded")
            return
        } catch {
            expectedMessage = error.description
        }
        let reply = try #require(try await messenger.deliver(onChannel: channelName, message: bad))
        #expect(
            try StandardMethodCodec().decodeEnvelope(reply)
                == .error(MethodError(code: "malformed", message: expectedMessage)))
        #expect(calls.waiting.isEmpty)
    }

    @Test func nullPayloadIsMalformed() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        channel.setMethodCallHandler { _ in .null }
        let reply = try #require(try await messenger.deliver(onChannel: channelName, message: nil))
        guard case .error(let error) = try StandardMethodCodec().decodeEnvelope(reply) else {
            Issue.record("expected an error envelope")
            return
        }
        #expect(error.code == "malformed")
        #expect(error.message?.contains("null") == true)
    }

    @Test func unencodableResultIsAnErrorEnvelope() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        channel.setMethodCallHandler { _ in .float64(.nan) }
        let reply = try #require(
            try await messenger.deliver(
                onChannel: channelName,
                message: utf8(#"{"method":"x","args":null}"#)))
        guard case .error(let error) = try JSONMethodCodec().decodeEnvelope(reply) else {
            Issue.record("expected an error envelope")
            return
        }
        #expect(error.code == "error")
        #expect(error.message?.contains("x") == true)
    }

    @Test func unencodableErrorDetailsAreDroppedNotTheError() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        channel.setMethodCallHandler { _ in throw MethodError(code: "E", message: "m", details: .float64(.infinity)) }
        let reply = try #require(
            try await messenger.deliver(
                onChannel: channelName,
                message: utf8(#"{"method":"x","args":null}"#)))
        guard case .error(let error) = try JSONMethodCodec().decodeEnvelope(reply) else {
            Issue.record("expected an error envelope")
            return
        }
        #expect(error.code == "E")
        #expect(error.details == .null)
        #expect(error.message?.hasPrefix("m (details not encodable") == true)
    }

    @Test func jsonHandlerBytes() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        channel.setMethodCallHandler { call in call.arguments }
        let reply = try await messenger.deliver(
            onChannel: channelName, message: utf8(#"{"method":"echo","args":[1,"a"]}"#))
        #expect(reply == utf8(#"[[1,"a"]]"#))
    }

    @Test func removingKeepsANewerHandlerOfAnotherChannelObject() async throws {
        let messenger = RecordingMessenger()
        let first = MethodChannel(name: channelName, messenger: messenger)
        let second = MethodChannel(name: channelName, messenger: messenger)
        first.setMethodCallHandler { _ in .string("first") }
        second.setMethodCallHandler { _ in .string("second") }
        first.setMethodCallHandler(nil)
        let reply = try await messenger.deliver(onChannel: channelName, message: hex("07 01 78 00"))
        #expect(reply == hex("00 07 06 7365636f6e64"))
        second.setMethodCallHandler(nil)
        #expect(!messenger.hasHandler(onChannel: channelName))
    }

    @Test func invokeReachesTheHandlerThroughLoopBack() async throws {
        let messenger = RecordingMessenger()
        messenger.loopBack()
        let channel = MethodChannel(name: channelName, messenger: messenger)
        channel.setMethodCallHandler { call in
            switch call.method {
            case "double":
                guard case .int32(let n) = call.arguments else { throw MethodError(code: "WRONG_TYPE") }
                return .int32(n * 2)
            case "boom": throw Boom()
            default: throw MethodNotImplemented()
            }
        }
        #expect(try await channel.invokeMethod("double", arguments: .int32(21)) == .int32(42))
        await #expect(throws: MethodError(code: "WRONG_TYPE")) { try await channel.invokeMethod("double") }
        await #expect(throws: MethodError(code: "error", message: "boom")) { try await channel.invokeMethod("boom") }
        let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("nope") }
        #expect(error.code == .notImplemented && error.method == "nope")
    }
}
