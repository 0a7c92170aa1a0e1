import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The exact text `channelbridge record` writes for one session through a real proxy in front of a
/// real `extension-host`: every kind of interaction it records (calls with success, error and null
/// replies, a JSON method call, a message send, a stream with its event ended by `cancel`, a stream
/// still open when the session ends with a call held behind it), byte for byte.
@Suite struct RecordedTranscriptTests {
    /// The session: each call waits for its reply, each event is awaited before the next call, so
    /// the order of what the proxy sees is fixed.
    static func drive(_ socket: String) async throws {
        let connection = try await SocketConnection.connect(
            to: socket, options: SocketConnection.Options(connectTimeout: .seconds(HangGuardScale.scaled(5))))
        defer { connection.close() }
        let messenger = connection.messenger
        let codec = StandardMethodCodec()
        func call(_ channel: String, _ method: String, _ arguments: StandardValue = .null) async throws {
            _ = try await messenger.send(
                onChannel: channel, message: try codec.encodeMethodCall(MethodCall(method, arguments: arguments)))
        }
        let changes = RecordCommandTests.changes, prefs = RecordCommandTests.prefs
        let events = Inbox<[UInt8]?>()
        messenger.setMessageHandler(onChannel: changes) { payload in
            events.put(payload)
            return nil
        }
        try await call("channelbridge/extension", "getInputItems")
        try await call(prefs, "setString", ["key": "k", "value": "v"])
        try await call(prefs, "getString", .null)
        try await call(changes, "listen", ["keys": ["k"]])
        try await call(prefs, "setString", ["key": "k", "value": "w\n\"é\""])
        _ = await events.next()
        try await call(prefs, "setInt", ["key": "n", "value": .int64(1 << 40)])
        try await call(changes, "cancel", ["keys": ["k"]])
        try await call("channelbridge/extension", "selfDestruct")
        _ = try await messenger.send(
            onChannel: "example/json",
            message: try JSONMethodCodec().encodeMethodCall(MethodCall("ping", arguments: [1.5, "x"])))
        _ = try await messenger.send(onChannel: "example/messages", message: try StandardMessageCodec().encode("hi"))
        try await call(changes, "listen", ["keys": ["n"]])
        try await call(prefs, "setInt", ["key": "n", "value": 7])
        _ = await events.next()
        try await call(prefs, "getInt", ["key": "n"])
    }

    @Test func aRecordedSessionIsWrittenByteForByte() async throws {
        try await withHangGuard(seconds: 60) {
            let live = try await LiveHost.start(["--text", "hello", "--url", "https://example.com/a"])
            defer { Task { _ = await live.stop() } }
            let transcript = live.directory.path + "/recorded.json"
            let recordSocket = live.directory.path + "/rec.sock"
            let record = try HostProcess(
                ["record", "--listen", recordSocket, "--socket", live.socket, "--transcript", transcript, "--once"],
                product: "channelbridge")
            #expect(try await record.readyLine() == "ready \(recordSocket)")
            try await Self.drive(recordSocket)
            let recorded = await record.waitForExit()
            #expect(recorded.stderr == "channelbridge record: 13 interactions written\n")
            #expect(recorded.status == 0)
            let text = try String(contentsOfFile: transcript, encoding: .utf8)
                .replacingOccurrences(of: live.socket, with: "HOST")
            #expect(text == Self.expected)
        }
    }

    /// 24 messages of 256 KiB in flight at once: 6 MiB pass the proxy, more than the writer's
    /// 4 MiB queue holds, and each becomes 512 KiB of text; every reply still arrives and every
    /// interaction is written, whole.
    @Test func moreThanTheQueueHoldsIsPassedOnAndWrittenWhole() async throws {
        try await withHangGuard(seconds: 60) {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let transcript = live.directory.path + "/big.json"
            let recordSocket = live.directory.path + "/rec.sock"
            let record = try HostProcess(
                ["record", "--listen", recordSocket, "--socket", live.socket, "--transcript", transcript, "--once"],
                product: "channelbridge")
            #expect(try await record.readyLine() == "ready \(recordSocket)")
            let connection = try await SocketConnection.connect(
                to: recordSocket,
                options: SocketConnection.Options(connectTimeout: .seconds(HangGuardScale.scaled(5))))
            let replies = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        var bytes = [UInt8](repeating: 0, count: 256 << 10)
                        bytes[0] = UInt8(index)
                        let payload = try StandardMessageCodec().encode(.uint8List(bytes))
                        return try await connection.messenger.send(onChannel: "example/big", message: payload)
                    }
                }
                var replies: [[UInt8]?] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            connection.close()
            #expect(replies.count == 24)
            #expect(replies.allSatisfy { $0 == nil })
            let recorded = await record.waitForExit()
            #expect(recorded.stderr == "channelbridge record: 24 interactions written\n")
            #expect(recorded.status == 0)
            let text = try String(contentsOfFile: transcript, encoding: .utf8)
            let lines = text.split(separator: "\n").filter { $0.hasPrefix(#"  {"channel":"example/big","send":"#) }
            #expect(lines.count == 24)
            #expect(lines.allSatisfy { $0.utf8.count > 512 << 10 })
        }
    }

    static let expected = #"""
        {"transcript":1,"about":"Recorded by channelbridge record from the host at HOST.",
         "interactions": [
          {"channel":"channelbridge/extension","call":{"method":"getInputItems","args":null},"hex":"070d676574496e7075744974656d7300","reply":{"success":[{"map":[["attachments",[{"map":[["typeIdentifier","public.plain-text"],["text","hello"]]},{"map":[["typeIdentifier","public.url"],["url","https://example.com/a"]]}]]]}]},"replyHex":"000c010d01070b6174746163686d656e74730c020d02070e747970654964656e74696669657207117075626c69632e706c61696e2d74657874070474657874070568656c6c6f0d02070e747970654964656e746966696572070a7075626c69632e75726c070375726c071568747470733a2f2f6578616d706c652e636f6d2f61"},
          {"channel":"shared_preference_app_group","call":{"method":"setString","args":{"map":[["key","k"],["value","v"]]}},"hex":"0709736574537472696e670d0207036b657907016b070576616c7565070176","reply":{"success":null},"replyHex":"0000"},
          {"channel":"shared_preference_app_group","call":{"method":"getString","args":null},"hex":"0709676574537472696e6700","reply":{"error":{"code":"INVALID_ARGUMENTS","message":"getString: the arguments must be a map with 'key', got null","details":{"map":[["method","getString"],["argument",null]]}}},"replyHex":"010711494e56414c49445f415247554d454e5453073b676574537472696e673a2074686520617267756d656e7473206d7573742062652061206d6170207769746820276b6579272c20676f74206e756c6c0d0207066d6574686f640709676574537472696e670708617267756d656e7400"},
          {"channel":"shared_preference_app_group/changes","listen":{"map":[["keys",["k"]]]},"hex":"07066c697374656e0d0107046b6579730c0107016b","reply":{"success":null},"replyHex":"0000","events":[{"success":{"map":[["key","k"],["value","w\n\"é\""]]}}],"end":false},
          {"channel":"shared_preference_app_group","call":{"method":"setString","args":{"map":[["key","k"],["value","w\n\"é\""]]}},"hex":"0709736574537472696e670d0207036b657907016b070576616c75650706770a22c3a922","reply":{"success":null},"replyHex":"0000"},
          {"channel":"shared_preference_app_group","call":{"method":"setInt","args":{"map":[["key","n"],["value",{"int64":"1099511627776"}]]}},"hex":"0706736574496e740d0207036b657907016e070576616c7565040000000000010000","reply":{"success":null},"replyHex":"0000"},
          {"channel":"shared_preference_app_group/changes","cancel":{"map":[["keys",["k"]]]},"hex":"070663616e63656c0d0107046b6579730c0107016b","reply":{"success":null},"replyHex":"0000"},
          {"channel":"channelbridge/extension","call":{"method":"selfDestruct","args":null},"hex":"070c73656c66446573747275637400","reply":{"notImplemented":true}},
          {"channel":"example/json","call":{"method":"ping","args":[{"float64":1.5},"x"]},"hex":"7b226d6574686f64223a2270696e67222c2261726773223a5b312e352c2278225d7d","reply":{"notImplemented":true}},
          {"channel":"example/messages","send":"hi","reply":null},
          {"channel":"shared_preference_app_group/changes","listen":{"map":[["keys",["n"]]]},"hex":"07066c697374656e0d0107046b6579730c0107016e","reply":{"success":null},"replyHex":"0000","events":[{"success":{"map":[["key","n"],["value",{"int32":7}]]}}],"end":false},
          {"channel":"shared_preference_app_group","call":{"method":"setInt","args":{"map":[["key","n"],["value",{"int32":7}]]}},"hex":"0706736574496e740d0207036b657907016e070576616c75650307000000","reply":{"success":null},"replyHex":"0000"},
          {"channel":"shared_preference_app_group","call":{"method":"getInt","args":{"map":[["key","n"]]}},"hex":"0706676574496e740d0107036b657907016e","reply":{"success":{"int32":7}},"replyHex":"000307000000"}
         ],
         "channels": {"channelbridge/extension":{"kind":"method","codec":"standard"},"shared_preference_app_group":{"kind":"method","codec":"standard"},"shared_preference_app_group/changes":{"kind":"event","codec":"standard"},"example/json":{"kind":"method","codec":"json"},"example/messages":{"kind":"message","codec":"standard"}}
        }

        """#
}
