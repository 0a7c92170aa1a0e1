import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Flutter
import Foundation
import Synchronization
import Testing

/// Flutter's threading: one serial platform executor per engine, handlers in arrival order across
/// channels, results and replies exactly once from any thread.
@Suite struct FlutterEngineThreadingTests {
    init() { LogCapture.start() }

    @Test func handlersRunOneAtATimeInArrivalOrderAcrossChannels() async throws {
        let session = EngineSession()
        defer { session.close() }
        let names = (0..<3).map { uniqueChannel("order\($0)") }
        let seen = Collector<String>()
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        for name in names {
            session.engine.setMessageHandlerOnChannel(name) { message, reply in
                if running.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
                seen.append(String(decoding: message ?? Data(), as: UTF8.self))
                running.subtract(1, ordering: .relaxed)
                // Replies may come from any thread.
                let later = ReplyHandoff(reply)
                DispatchQueue.global().async { later.reply(message) }
            }
        }
        try await withHangGuard {
            var sent: [String] = []
            var replies: [Task<[UInt8]?, any Error>] = []
            for index in 0..<300 {
                let name = names[index % 3]
                let text = "\(index)"
                sent.append(text)
                if index % 4 == 3 {
                    try session.client.post(onChannel: name, message: Array(text.utf8))
                } else {
                    // Started here, so the requests are written in this order.
                    replies.append(
                        Task.immediate { try await session.client.send(onChannel: name, message: Array(text.utf8)) })
                }
            }
            for reply in replies { _ = try await reply.value }
            let order = try await seen.first(300)
            #expect(order == sent)
            let didOverlap = overlapped.load(ordering: .relaxed)
            #expect(!didOverlap)
        }
    }

    @Test func aResultCanComeLaterFromAnotherThreadAndOnlyTheFirstCounts() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("twice")
        let channel = FlutterMethodChannel(name: name, binaryMessenger: session.engine)
        let pending = Inbox<Handoff>()
        channel.setMethodCallHandler { call, result in
            pending.put(Handoff(result))
        }
        try await withHangGuard {
            let caller = MethodChannel(name: name, messenger: session.client)
            let answer = Task { try await caller.invokeMethod("work") }
            let result = await pending.next()
            let done = Gate()
            Thread.detachNewThread {
                result.result("first")
                result.result("second")
                done.open()
            }
            let first = try await answer.value
            #expect(first == "first")
            await done.wait()
            #expect(
                LogCapture.lines(mentioning: name) == [
                    "warning: The result of work on channel \(name) was sent more than once; the later one is ignored"
                ])
        }
    }

    @Test func aBinaryReplyTwiceIsIgnoredWithAWarning() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("binary-twice")
        session.engine.setMessageHandlerOnChannel(name) { message, reply in
            reply(Data([1]))
            reply(Data([2]))
        }
        try await withHangGuard {
            let reply = try await session.client.send(onChannel: name, message: [])
            #expect(reply == [1])
            #expect(
                LogCapture.lines(mentioning: name) == [
                    "warning: A reply on channel '\(name)' was sent more than once; the later one is ignored"
                ])
        }
    }

    @Test func aReplyReleasedUnansweredFailsTheCallInsteadOfHanging() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("dropped")
        FlutterMethodChannel(name: name, binaryMessenger: session.engine).setMethodCallHandler { _, _ in }
        try await withHangGuard {
            do {
                _ = try await MethodChannel(name: name, messenger: session.client).invokeMethod("forget")
                Issue.record("the call succeeded")
            } catch let error as ChannelError {
                #expect(error.code == .handlerFailed)
                #expect(error.message == "the handler on channel '\(name)' released its reply without answering")
            }
        }
    }

    @Test func resultsMapToEnvelopesAsOnIOS() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("results")
        FlutterMethodChannel(name: name, binaryMessenger: session.engine).setMethodCallHandler { call, result in
            switch call.method {
            case "value": result(["echo": call.arguments])
            case "error": result(FlutterError(code: "E_CODE", message: "it failed", details: Int32(7)))
            case "unencodable": result(Date())
            default: result(FlutterMethodNotImplemented)
            }
        }
        try await withHangGuard {
            let caller = MethodChannel(name: name, messenger: session.client)
            let echoed = try await caller.invokeMethod("value", arguments: .int32(3))
            #expect(echoed == ["echo": .int32(3)])
            await #expect(throws: MethodError(code: "E_CODE", message: "it failed", details: .int32(7))) {
                try await caller.invokeMethod("error")
            }
            await #expect(throws: ChannelError.self) { try await caller.invokeMethod("missing") }
            do {
                _ = try await caller.invokeMethod("unencodable")
                Issue.record("an unencodable result was sent")
            } catch let error as MethodError {
                #expect(error.code == "error")
                #expect(
                    error.message?.hasPrefix(
                        "Cannot encode the result of unencodable on channel \(name): Unsupported value:") == true)
            }
        }
    }

    @Test func aMalformedCallIsAnsweredWithoutReachingTheHandler() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("malformed")
        let reached = Atomic<Bool>(false)
        FlutterMethodChannel(name: name, binaryMessenger: session.engine).setMethodCallHandler { _, result in
            reached.store(true, ordering: .relaxed)
            result(nil)
        }
        try await withHangGuard {
            let reply = try #require(try await session.client.send(onChannel: name, message: [0x07, 0x05, 0x61]))
            guard case .error(let error) = try StandardMethodCodec().decodeEnvelope(reply) else {
                Issue.record("not an error envelope")
                return
            }
            #expect(error.code == "malformed")
            #expect(error.message == "string claims 5 bytes but only 1 are left (at byte 1)")
            let handlerRan = reached.load(ordering: .relaxed)
            #expect(!handlerRan)
        }
    }

    @Test func messagesBeyondTheExecutorsBoundAreRefused() async throws {
        let session = EngineSession(options: FlutterEngine.Options(maximumWaitingMessages: 2, label: "bounded"))
        defer { session.close() }
        let name = uniqueChannel("bounded")
        let started = Inbox<Int>()
        let release = DispatchSemaphore(value: 0)
        session.engine.setMessageHandlerOnChannel(name) { message, reply in
            let index = Int(message?.first ?? 0)
            started.put(index)
            if index == 0 { release.wait() }
            reply(message)
        }
        try await withHangGuard {
            let first = Task.immediate { try await session.client.send(onChannel: name, message: [0]) }
            #expect(await started.next() == 0)
            // The executor is busy with the first message: two more may wait, the fourth is refused.
            let second = Task.immediate { try await session.client.send(onChannel: name, message: [1]) }
            let third = Task.immediate { try await session.client.send(onChannel: name, message: [2]) }
            do {
                _ = try await session.client.send(onChannel: name, message: [3])
                Issue.record("a fourth message was admitted")
            } catch let error as MessengerError {
                #expect(error.code == .handlerFailed)
                #expect(
                    error.message
                        == "the message on channel '\(name)' was refused: bounded platform has 2 messages waiting")
            }
            release.signal()
            let answers = [try await first.value, try await second.value, try await third.value]
            #expect(answers == [[0], [1], [2]])
        }
    }

    @Test func messagesTheEngineSendsGoOutInOrderAndRepliesComeBackOnThePlatformExecutor() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("outgoing")
        let arrived = Collector<String>()
        let listener = MethodChannel(name: name, messenger: session.client)
        listener.setMethodCallHandler { call in
            arrived.append(call.method)
            if call.method == "missing" { throw MethodNotImplemented() }
            if call.method == "fail" { throw MethodError(code: "NOPE", message: "no") }
            return .string(call.method)
        }
        let results = Collector<String>()
        let start = FlutterMethodChannel(name: uniqueChannel("start"), binaryMessenger: session.engine)
        let channel = FlutterMethodChannel(name: name, binaryMessenger: session.engine)
        start.setMethodCallHandler { _, result in
            for index in 0..<50 {
                if index % 2 == 0 {
                    channel.invokeMethod("m\(index)", arguments: nil)
                } else {
                    channel.invokeMethod("m\(index)", arguments: nil) { reply in results.append("\(reply ?? "nil")") }
                }
            }
            channel.invokeMethod("missing", arguments: nil) { reply in
                results.append((reply as? NSObject) === FlutterMethodNotImplemented ? "not implemented" : "?")
            }
            channel.invokeMethod("fail", arguments: nil) { reply in
                results.append((reply as? FlutterError).map { "\($0.code): \($0.message ?? "")" } ?? "?")
            }
            result(nil)
        }
        try await withHangGuard {
            _ = try await MethodChannel(name: start.name, messenger: session.client).invokeMethod("go")
            let calls = try await arrived.first(52)
            #expect(calls == (0..<50).map { "m\($0)" } + ["missing", "fail"])
            let replies = try await results.first(27)
            #expect(
                Set(replies) == Set((0..<50).filter { $0 % 2 == 1 }.map { "m\($0)" } + ["not implemented", "NOPE: no"]))
        }
    }

    @Test func aSendOnAClosedSessionGetsANilReply() async throws {
        let session = EngineSession()
        let name = uniqueChannel("closed")
        session.close()
        try await withHangGuard {
            let reply = Inbox<String>()
            FlutterBasicMessageChannel(name: name, binaryMessenger: session.engine).sendMessage("x") { answer in
                reply.put(answer == nil ? "nil" : "\(answer!)")
            }
            #expect(await reply.next() == "nil")
        }
    }
}

/// A non-Sendable callback handed to another thread in a test, as plugin code in the Swift 6
/// language mode must on iOS too (`FlutterResult` is not `Sendable` there either).
struct Handoff: @unchecked Sendable {
    // @unchecked: the test calls it from one thread at a time.
    let result: FlutterResult
    init(_ result: @escaping FlutterResult) { self.result = result }
}

struct ReplyHandoff: @unchecked Sendable {
    // @unchecked: called once, from one thread.
    let reply: FlutterBinaryReply
    init(_ reply: @escaping FlutterBinaryReply) { self.reply = reply }
}

extension FlutterEngineThreadingTests {
    @Test func aBackgroundTaskQueueRunsItsHandlersInOrderOffThePlatformExecutor() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("task-queue"), platformName = uniqueChannel("platform")
        let taskQueue = try #require(session.engine.makeBackgroundTaskQueue?())
        let release = DispatchSemaphore(value: 0)
        let seen = Collector<String>()
        // The platform executor is held up; the task queue's handlers still run, in order.
        FlutterBasicMessageChannel(
            name: platformName, binaryMessenger: session.engine, codec: FlutterStringCodec.sharedInstance()
        )
        .setMessageHandler { message, reply in
            release.wait()
            reply(message)
        }
        FlutterBasicMessageChannel(
            name: name, binaryMessenger: session.engine, codec: FlutterStringCodec.sharedInstance(),
            taskQueue: taskQueue
        ).setMessageHandler { message, reply in
            seen.append(message as? String ?? "?")
            reply(message)
        }
        try await withHangGuard { () async throws in
            let blocked = Task.immediate {
                try await session.client.send(onChannel: platformName, message: Array("p".utf8))
            }
            for index in 0..<20 { try session.client.post(onChannel: name, message: Array("\(index)".utf8)) }
            let order = try await seen.first(20)
            #expect(order == (0..<20).map(String.init))
            release.signal()
            let unblocked = try await blocked.value
            #expect(unblocked == Array("p".utf8))
        }
    }

    @Test func a1000DeepMessageIsDecodedOnTheExecutorAndADeeperOneRefused() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("deep")
        let depths = Collector<Int>()
        FlutterBasicMessageChannel(name: name, binaryMessenger: session.engine).setMessageHandler { message, reply in
            var depth = 0, current = message
            while let list = current as? [Any?] { depth += 1; current = list.first ?? nil }
            depths.append(depth)
            reply(depth)
        }
        try await withHangGuard { () async throws in
            let deep: [UInt8] = Array(repeating: [UInt8(0x0C), 1], count: 1_000).flatMap { $0 } + [0]
            let reply = try await session.client.send(onChannel: name, message: deep)
            let expected: [UInt8] = [4] + withUnsafeBytes(of: Int64(1_000).littleEndian, Array.init)
            #expect(reply == expected)
            let deeper: [UInt8] = Array(repeating: [UInt8(0x0C), 1], count: 5_000).flatMap { $0 } + [0]
            do {
                _ = try await session.client.send(onChannel: name, message: deeper)
                Issue.record("a 5,000-deep message was accepted")
            } catch let error as MessengerError {
                #expect(error.code == .handlerFailed)
                #expect(
                    error.message.hasPrefix(
                        "Cannot decode the message on channel \(name): values nest deeper than 1000 levels"))
            }
            let handled = try await depths.first(1)
            #expect(handled == [1_000])
        }
    }
}
