import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeContracts
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A transcript of `interactions` (a JSON array's inside) on a method channel `c` (sequence), `a`
/// (any order), an event channel `e` and a message channel `m`.
private func transcript(_ interactions: String) throws -> Transcript {
    try Transcript(
        json: #"""
            {"transcript": 1,
             "channels": {"c": {"kind": "method"}, "a": {"kind": "method", "order": "any"}, "e": {"kind": "event"},
                          "m": {"kind": "message"}},
             "interactions": [\#(interactions)]}
            """#)
}

/// `MockHost(transcript:)` answering a client in memory: replies, order, streams, unmatched calls
/// and the end report (Protocol/transcript.md §3, §6).
@Suite struct MockHostTests {
    @Test func matchedCallsGetTheirRepliesAndTheReportIsEmpty() async throws {
        let mock = MockHost(
            transcript: try transcript(
                #"""
                {"channel": "c", "call": {"method": "greet", "args": {"map": [["name", {"$any": "string"}]]}},
                 "reply": {"success": {"$regex": "Hello, .*", "example": "Hello, Ada!"}}},
                {"channel": "c", "call": {"method": "fail"}, "reply": {"error": {"code": "E", "message": "m", "details": {"int32": 1}}}},
                {"channel": "c", "call": {"method": "nothing"}, "reply": {"notImplemented": true}},
                {"channel": "m", "send": "ping", "reply": "pong"}
                """#))
        let client = mock.connect()
        defer { client.close() }
        try await withHangGuard { () async throws in
            let channel = MethodChannel(name: "c", messenger: client)
            #expect(try await channel.invokeMethod("greet", arguments: ["name": "Bob"]) == "Hello, Ada!")
            await #expect(throws: MethodError(code: "E", message: "m", details: .int32(1))) {
                try await channel.invokeMethod("fail")
            }
            do {
                _ = try await channel.invokeMethod("nothing")
                Issue.record("a null reply was expected")
            } catch let error as ChannelError {
                #expect(error.code == .notImplemented)
            }
            let messages = BasicMessageChannel(name: "m", messenger: client, codec: StandardMessageCodec())
            #expect(try await messages.send("ping") == "pong")
        }
        #expect(mock.report == [])
    }

    @Test func anUnmatchedCallIsAnsweredUnexpectedCallNamingTheNearestInteractionAndTheDifference() async throws {
        let mock = MockHost(
            transcript: try transcript(
                #"""
                {"channel": "c", "call": {"method": "getString", "args": {"map": [["key", "a"]]}}, "reply": {"success": "x"}},
                {"channel": "c", "call": {"method": "exit"}, "reply": {"success": null}}
                """#))
        let client = mock.connect()
        defer { client.close() }
        let channel = MethodChannel(name: "c", messenger: client)
        let expectedMessage =
            #"unexpected call getString {"map":[["key","b"]]} on c; nearest recorded: interaction 0 (getString {"map":[["key","a"]]}): args.value("key"): expected "a", got "b""#
        try await withHangGuard { () async throws in
            await #expect(
                throws: MethodError(
                    code: "UNEXPECTED_CALL", message: expectedMessage,
                    details: ["channel": "c", "method": "getString", "nearest": .int32(0)])
            ) {
                try await channel.invokeMethod("getString", arguments: ["key": "b"])
            }
            // In sequence: exit before getString is out of order, and says which method was due.
            await #expect(
                throws: MethodError(
                    code: "UNEXPECTED_CALL",
                    message:
                        #"unexpected call exit null on c; nearest recorded: interaction 1 (exit null): it was expected after interaction 0 of the channel"#,
                    details: ["channel": "c", "method": "exit", "nearest": .int32(1)])
            ) {
                try await channel.invokeMethod("exit")
            }
        }
        #expect(
            mock.report == [
                #"missing: interaction 0 on c: getString {"map":[["key","a"]]}"#,
                "missing: interaction 1 on c: exit null",
                "unexpected: " + expectedMessage,
                #"unexpected: unexpected call exit null on c; nearest recorded: interaction 1 (exit null): it was expected after interaction 0 of the channel"#,
            ])
    }

    @Test func anyOrderMatchesTheChannelsCallsWhateverTheirOrder() async throws {
        let interactions = #"""
            {"channel": "a", "call": {"method": "one"}, "reply": {"success": {"int32": 1}}},
            {"channel": "a", "call": {"method": "two"}, "reply": {"success": {"int32": 2}}},
            {"channel": "c", "call": {"method": "one"}, "reply": {"success": {"int32": 1}}},
            {"channel": "c", "call": {"method": "two"}, "reply": {"success": {"int32": 2}}}
            """#
        let mock = MockHost(transcript: try transcript(interactions))
        let client = mock.connect()
        defer { client.close() }
        try await withHangGuard { () async throws in
            let any = MethodChannel(name: "a", messenger: client)
            #expect(try await any.invokeMethod("two") == .int32(2))
            #expect(try await any.invokeMethod("one") == .int32(1))
            let sequence = MethodChannel(name: "c", messenger: client)
            await #expect(throws: MethodError.self) { try await sequence.invokeMethod("two") }
        }
        #expect(mock.missingInteractions == [2, 3])

        // The option makes every channel any-order.
        let lenient = MockHost(transcript: try transcript(interactions), anyOrder: true)
        let second = lenient.connect()
        defer { second.close() }
        try await withHangGuard { () async throws in
            let sequence = MethodChannel(name: "c", messenger: second)
            #expect(try await sequence.invokeMethod("two") == .int32(2))
            #expect(try await sequence.invokeMethod("one") == .int32(1))
        }
        #expect(lenient.missingInteractions == [0, 1])
    }

    @Test func aListenGetsItsReplyThenItsEventsAndEnd() async throws {
        let mock = MockHost(
            transcript: try transcript(
                #"""
                {"channel": "e", "listen": {"map": [["rate", {"int32": 2}]]},
                 "events": [{"success": {"int32": 1}}, {"error": {"code": "GLITCH", "message": "m"}}, {"success": {"int32": 2}}],
                 "end": true}
                """#))
        let client = mock.connect()
        defer { client.close() }
        try await withHangGuard { () async throws in
            var received: [MethodEnvelope] = []
            for try await event in EventChannel(name: "e", messenger: client).receiveBroadcastStream(arguments: [
                "rate": 2
            ]) {
                received.append(event)
            }
            #expect(
                received == [
                    .success(.int32(1)), .error(MethodError(code: "GLITCH", message: "m")), .success(.int32(2)),
                ])
        }
        // The listener's own cancel after the end is not in the transcript and is not reported.
        try await client.ping()
        #expect(mock.report == [])
    }

    @Test func theHostsOwnInteractionsFollowTheInteractionsListedBeforeThem() async throws {
        let mock = MockHost(
            transcript: try transcript(
                #"""
                {"channel": "c", "call": {"method": "start"}, "reply": {"success": null}},
                {"channel": "m", "from": "host", "post": "started"},
                {"channel": "c", "from": "host", "call": {"method": "ask", "args": {"int32": 1}}, "reply": {"success": {"int32": 2}}}
                """#))
        let client = mock.connect()
        defer { client.close() }
        let posts = Inbox<[UInt8]?>()
        client.setMessageHandler(onChannel: "m") { payload in
            posts.put(payload)
            return nil
        }
        let asked = Inbox<MethodCall>()
        MethodChannel(name: "c", messenger: client).setMethodCallHandler { call in
            asked.put(call)
            return .int32(3)
        }
        try await withHangGuard { () async throws in
            #expect(
                try await client.send(
                    onChannel: "c", message: try StandardMethodCodec().encodeMethodCall(MethodCall("start")))
                    == [0, 0])
            #expect(await posts.next() == Array("\u{07}\u{07}started".utf8))
            #expect(await asked.next() == MethodCall("ask", arguments: .int32(1)))
            // The client answered 3 where the transcript says 2: the mock reports it.
            await mock.hostCallsAnswered()
        }
        #expect(
            mock.report == [
                #"mismatch: interaction 2 on c, method ask: reply.success: expected {"int32":2}, got {"int32":3}"#
            ])
    }

    @Test func recordedReplyBytesAreSentExactly() async throws {
        // A success envelope of int32 1 whose bytes the transcript gives: the mock sends them as given.
        let mock = MockHost(
            transcript: try transcript(
                #"""
                {"channel": "c", "call": {"method": "n"}, "reply": {"success": {"int32": 1}}, "replyHex": "000301000000"}
                """#))
        let client = mock.connect()
        defer { client.close() }
        try await withHangGuard { () async throws in
            let reply = try await client.send(
                onChannel: "c", message: try StandardMethodCodec().encodeMethodCall(MethodCall("n")))
            #expect(reply == [0x00, 0x03, 0x01, 0x00, 0x00, 0x00])
        }
    }
}

/// `TranscriptVerifier` (what `channelbridge verify` runs) against a `MockHost` in memory: a
/// transcript verifies against its own mock, and a host answering otherwise gets one diff per
/// mismatch.
@Suite struct TranscriptVerifierTests {
    static let contract = #"""
        {"channel": "c", "call": {"method": "greet", "args": {"map": [["name", "Ada"]]}},
         "reply": {"success": {"$regex": "Hello, .*", "example": "Hello, Ada!"}}},
        {"channel": "e", "listen": null, "events": [{"success": {"int32": 1}}], "end": true},
        {"channel": "m", "send": "ping", "reply": "pong"}
        """#

    @Test func aTranscriptVerifiesAgainstItsOwnMock() async throws {
        let mock = MockHost(transcript: try transcript(Self.contract))
        let client = mock.connect()
        defer { client.close() }
        let lines = try await withHangGuard { () async throws in
            await TranscriptVerifier(transcript: try transcript(Self.contract)).verify(on: client)
        }
        #expect(lines == [])
        #expect(mock.report == [])
    }

    @Test func eachMismatchIsOneLineNamingChannelMethodPathAndValues() async throws {
        let host = MockHost(
            transcript: try transcript(
                #"""
                {"channel": "c", "call": {"method": "greet", "args": {"map": [["name", "Ada"]]}}, "reply": {"success": "Goodbye"}},
                {"channel": "e", "listen": null, "events": [{"success": {"int64": "1"}}], "end": true},
                {"channel": "m", "send": "ping", "reply": "pang"}
                """#))
        let client = host.connect()
        defer { client.close() }
        let lines = try await withHangGuard { () async throws in
            await TranscriptVerifier(transcript: try transcript(Self.contract), eventTimeout: .seconds(30)).verify(
                on: client)
        }
        #expect(
            lines == [
                #"mismatch: interaction 0 on c, method greet: reply.success: expected {"$regex":"Hello, .*","example":"Hello, Ada!"}, got "Goodbye""#,
                #"mismatch: interaction 2 on m, method message: reply: expected "pong", got "pang""#,
                #"mismatch: interaction 1 on e, method listen: events[0].success: expected {"int32":1}, got {"int64":"1"}"#,
            ])
    }
}
