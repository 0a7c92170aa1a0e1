import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge record` between a real client session and a real `extension-host`, then the
/// transcript served by `channelbridge mock` to the same client (byte-identical replies and events)
/// and checked by `channelbridge verify` against the same host.
@Suite struct RecordCommandTests {
    static let changes = "shared_preference_app_group/changes"
    static let prefs = "shared_preference_app_group"

    /// One session's calls, as a Flutter UI would make them; returns every reply's and event's
    /// bytes in order (nil for a null reply).
    static func drive(_ socket: String) async throws -> [[UInt8]?] {
        let connection = try await SocketConnection.connect(
            to: socket, options: SocketConnection.Options(connectTimeout: .seconds(HangGuardScale.scaled(5))))
        defer { connection.close() }
        let messenger = connection.messenger
        let codec = StandardMethodCodec()
        func call(_ channel: String, _ method: String, _ arguments: StandardValue = .null) async throws -> [UInt8]? {
            try await messenger.send(
                onChannel: channel, message: try codec.encodeMethodCall(MethodCall(method, arguments: arguments)))
        }
        let events = Inbox<[UInt8]?>()
        messenger.setMessageHandler(onChannel: changes) { payload in
            events.put(payload)
            return nil
        }
        var received: [[UInt8]?] = []
        received.append(try await call("channelbridge/extension", "getInputItems"))
        received.append(try await call(prefs, "setString", ["key": "k", "value": "v"]))
        received.append(try await call(changes, "listen", ["keys": ["k"]]))
        received.append(try await call(prefs, "setString", ["key": "k", "value": "w"]))
        received.append(await events.next())
        received.append(try await call(prefs, "setInt", ["key": "n", "value": .int64(1 << 40)]))
        received.append(try await call(prefs, "getString", ["key": "n"]))
        received.append(try await call("channelbridge/extension", "selfDestruct"))
        received.append(try await call(changes, "cancel", ["keys": ["k"]]))
        received.append(try await call(prefs, "getString", ["key": "k"]))
        return received
    }

    @Test func recordThenMockGivesByteIdenticalRepliesAndVerifyPassesAgainstTheSameHost() async throws {
        try await withHangGuard(seconds: 60) {
            let live = try await LiveHost.start(["--text", "hello", "--url", "https://example.com/a"])
            defer { Task { _ = await live.stop() } }
            let transcript = live.directory.path + "/recorded.json"
            let recordSocket = live.directory.path + "/rec.sock"
            let record = try HostProcess(
                ["record", "--listen", recordSocket, "--socket", live.socket, "--transcript", transcript],
                product: "channelbridge")
            #expect(try await record.readyLine() == "ready \(recordSocket)")
            let direct = try await Self.drive(recordSocket)
            record.send(signal: SIGTERM)
            let recorded = await record.waitForExit()
            #expect(recorded.stderr == "channelbridge record: 9 interactions written\n")
            #expect(recorded.status == 0)

            let mockSocket = live.directory.path + "/mock.sock"
            let mock = try HostProcess(
                ["mock", "--transcript", transcript, "--socket", mockSocket], product: "channelbridge")
            #expect(try await mock.readyLine() == "ready \(mockSocket)")
            let mocked = try await Self.drive(mockSocket)
            #expect(mocked == direct)
            #expect(direct.count == 10)
            mock.send(signal: SIGTERM)
            let served = await mock.waitForExit()
            #expect(served.stderr == "")
            #expect(served.status == 0)

            let verify = try await live.channelbridge(["verify", "--transcript", transcript, "--event-timeout", "30"])
            #expect(verify.stdout == "verified: 9 interactions\n")
            #expect(verify.stderr == "")
            #expect(verify.status == 0)
        }
    }

    @Test func redactedKeysAndChannelsBecomeTypedPlaceholdersWithoutBytes() async throws {
        try await withHangGuard(seconds: 60) {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let transcript = live.directory.path + "/redacted.json"
            let recordSocket = live.directory.path + "/rec.sock"
            let record = try HostProcess(
                [
                    "record", "--listen", recordSocket, "--socket", live.socket, "--transcript", transcript,
                    "--redact", "value", "--redact", "channel:channelbridge/extension", "--once",
                ],
                product: "channelbridge")
            #expect(try await record.readyLine() == "ready \(recordSocket)")
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["session", "--socket", recordSocket],
                stdin: """
                    shared_preference_app_group setString {"key": "token", "value": "s3cret"}
                    channelbridge/extension getInputItems

                    """)
            #expect(outcome.status == 0)
            let exit = await record.waitForExit()
            #expect(exit.status == 0)
            let text = try String(contentsOfFile: transcript, encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.count == 7)
            #expect(
                lines[2]
                    == #"  {"channel":"shared_preference_app_group","call":{"method":"setString","args":{"map":[["key","token"],["value",{"$any":"string","example":"REDACTED"}]]}},"reply":{"success":null}},"#
            )
            #expect(
                lines[3]
                    == #"  {"channel":"channelbridge/extension","call":{"method":"getInputItems","args":{"$any":"null","example":null}},"reply":{"success":{"$any":"list","example":[]}}}"#
            )
            #expect(!text.contains("s3cret"))
            #expect(!text.contains("attachments"))
            // The redacted transcript still verifies against the host: the placeholders match by type.
            let verify = try await live.channelbridge(["verify", "--transcript", transcript])
            #expect(verify.stdout == "verified: 2 interactions\n")
        }
    }

    /// What a session could not record is still counted once the session has ended and the proxy
    /// no longer keeps its tap: two sessions, one after the other, each send a request no codec
    /// reads (the host answers it as not implemented).
    @Test func whatEndedSessionsCouldNotRecordIsCountedAtTheEnd() async throws {
        try await withHangGuard(seconds: 60) {
            let live = try await LiveHost.start([])
            defer { Task { _ = await live.stop() } }
            let transcript = live.directory.path + "/recorded.json"
            let recordSocket = live.directory.path + "/rec.sock"
            let record = try HostProcess(
                ["record", "--listen", recordSocket, "--socket", live.socket, "--transcript", transcript],
                product: "channelbridge")
            #expect(try await record.readyLine() == "ready \(recordSocket)")
            for _ in 0..<2 {
                let connection = try await SocketConnection.connect(
                    to: recordSocket,
                    options: SocketConnection.Options(connectTimeout: .seconds(HangGuardScale.scaled(5))))
                #expect(try await connection.messenger.send(onChannel: "test/unread", message: [0xFF]) == nil)
                connection.close()
                await connection.waitUntilClosed()
            }
            record.send(signal: SIGTERM)
            let recorded = await record.waitForExit()
            #expect(
                recorded.stderr == "channelbridge record: 2 interactions or events were not recorded (see --help)\n"
                    + "channelbridge record: 0 interactions written\n")
            #expect(recorded.status == 0)
        }
    }
}
