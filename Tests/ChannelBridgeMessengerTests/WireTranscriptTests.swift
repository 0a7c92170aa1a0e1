import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The annotated session transcript in Protocol/wire-protocol.md is produced by the real encoder:
/// this test renders it and compares it with the document, line for line.
@Suite struct WireTranscriptTests {
    /// StandardMessageCodec pieces, spelled out so that this test needs no codec module.
    static func string(_ text: String) -> [UInt8] { [0x07, UInt8(text.utf8.count)] + Array(text.utf8) }
    static func map(_ pairs: [([UInt8], [UInt8])]) -> [UInt8] {
        [0x0D, UInt8(pairs.count)] + pairs.flatMap { $0.0 + $0.1 }
    }
    static let null: [UInt8] = [0x00]
    static func success(_ value: [UInt8]) -> [UInt8] { [0x00] + value }

    struct Step {
        var outgoing: Bool  // --> client to host, <-- host to client
        var frame: Frame
        var note: String
    }

    static let changes = "shared_preference_app_group/changes"
    static let steps: [Step] = [
        Step(
            outgoing: true, frame: .hello(.init(role: .client, peerName: "channelbridge 0.1 pid 4242")),
            note: "HELLO from the client"),
        Step(
            outgoing: false, frame: .hello(.init(role: .host, peerName: "extension-host 0.1 pid 4243")),
            note: "HELLO from the host (both sides send HELLO at once; neither waits for the other)"),
        Step(
            outgoing: true,
            frame: .request(
                id: 1, channel: "shared_preference_app_group",
                payload: string("getString") + map([(string("key"), string("ShareKey"))])),
            note:
                "REQUEST: method call getString({key: ShareKey}) = 07 09 \"getString\" 0d 01 07 03 \"key\" 07 08 \"ShareKey\""
        ),
        Step(
            outgoing: false, frame: .reply(id: 1, result: .bytes(success(string("hi there")))),
            note: "REPLY status 0: success envelope = 00, then the value 07 08 \"hi there\""),
        Step(
            outgoing: true,
            frame: .request(id: 2, channel: "shared_preference_app_group", payload: string("getColor") + null),
            note: "REQUEST: method call getColor(null) = 07 08 \"getColor\" 00, a method nobody implements"),
        Step(
            outgoing: false, frame: .reply(id: 2, result: .null),
            note: "REPLY status 1: null reply (not implemented); no payload"),
        Step(
            outgoing: true,
            frame: .request(
                id: 3, channel: changes,
                payload: string("listen") + map([(string("appGroup"), string("group.local"))])),
            note: "REQUEST on an event channel: method call listen({appGroup: group.local})"),
        Step(
            outgoing: false, frame: .reply(id: 3, result: .bytes(success(null))),
            note: "REPLY to listen: success envelope 00 + null (00), sent before the first event"),
        Step(
            outgoing: false,
            frame: .message(
                channel: changes,
                payload: success(map([(string("key"), string("ShareKey")), (string("value"), string("hello"))]))),
            note: "MESSAGE, event 1: success envelope 00 + {key: ShareKey, value: hello}"),
        Step(
            outgoing: false,
            frame: .message(
                channel: changes,
                payload: success(map([(string("key"), string("ShareKey")), (string("value"), null)]))),
            note: "MESSAGE, event 2: success envelope 00 + {key: ShareKey, value: null}"),
        Step(
            outgoing: false, frame: .message(channel: changes, payload: nil),
            note: "MESSAGE with a null payload: the end of the event stream"),
        Step(
            outgoing: true, frame: .goodbye(code: .normal, reason: "done"),
            note: "GOODBYE normal: nothing is owed either way, so both sides close"),
    ]

    /// The frame's fields after length and kind: width in bytes and a label.
    static func fields(_ frame: Frame) -> [(Int, String)] {
        switch frame {
        case .hello(let hello):
            [
                (4, "magic \"CHBR\""), (2, "version \(hello.version)"), (2, "flags \(hello.flags)"),
                (1, "role \(hello.role.rawValue) (\(hello.role))"),
                (2, "peer name length \(hello.peerName.utf8.count)"),
                (hello.peerName.utf8.count, "peer name \"\(hello.peerName)\""),
            ]
        case .request(let id, let channel, let payload):
            [
                (4, "id \(id)"), (2, "channel length \(channel.utf8.count)"),
                (channel.utf8.count, "channel \"\(channel)\""),
                (1, payload == nil ? "payloadFlags 01: null payload" : "payloadFlags 00"),
                (payload?.count ?? 0, "payload (\(payload?.count ?? 0) bytes)"),
            ]
        case .reply(let id, let result):
            [
                (4, "id \(id)"), (1, "status \(result.status)"),
                (
                    FrameEncoder.encodedLength(of: frame) - 10,
                    "payload (\(FrameEncoder.encodedLength(of: frame) - 10) bytes)"
                ),
            ]
        case .message(let channel, let payload):
            [
                (2, "channel length \(channel.utf8.count)"), (channel.utf8.count, "channel \"\(channel)\""),
                (1, payload == nil ? "payloadFlags 01: null payload" : "payloadFlags 00"),
                (payload?.count ?? 0, "payload (\(payload?.count ?? 0) bytes)"),
            ]
        case .cancel(let id): [(4, "id \(id)")]
        case .ping(let token), .pong(let token): [(8, "token \(token)")]
        case .goodbye(let code, let reason):
            [(2, "code \(code.rawValue) (\(code))"), (reason.utf8.count, "reason \"\(reason)\"")]
        }
    }

    static func render() -> String {
        var lines: [String] = []
        let column = steps.flatMap { fields($0.frame).map { $0.0 * 2 } }.max() ?? 0
        for step in steps {
            var bytes: [UInt8] = []
            FrameEncoder.encodeValidated(step.frame, into: &bytes)
            let length = bytes.count - 4
            var offset = 0
            lines.append("\(step.outgoing ? "-->" : "<--") \(step.note)")
            for (width, label) in [(4, "length \(length)"), (1, "kind \("\(step.frame.kind)".uppercased())")]
                + fields(step.frame)
            where width > 0 {
                let text = hexString(Array(bytes[offset..<offset + width]))
                offset += width
                lines.append(
                    "    " + text.padding(toLength: max(text.count, column), withPad: " ", startingAt: 0) + "  " + label
                )
            }
            precondition(offset == bytes.count, "fields do not cover the frame")
        }
        return lines.joined(separator: "\n")
    }

    @Test func transcriptInTheDocumentIsWhatTheEncoderWrites() throws {
        let url = packageRoot.appendingPathComponent("Protocol/wire-protocol.md")
        let document = try String(contentsOf: url, encoding: .utf8)
        let begin = try #require(document.range(of: "<!-- transcript:begin -->\n```text\n"))
        let end = try #require(document.range(of: "\n```\n<!-- transcript:end -->"))
        let inDocument = String(document[begin.upperBound..<end.lowerBound])
        let rendered = Self.render()
        #expect(inDocument == rendered, "expected transcript:\n\(rendered)")
    }

    /// The transcript, decoded again, gives back the same frames.
    @Test func transcriptDecodes() throws {
        var decoder = FrameDecoder()
        for step in Self.steps { try decoder.append(FrameEncoder.encode(step.frame)) }
        var decoded: [Frame] = []
        while let frame = try decoder.next() { decoded.append(frame) }
        #expect(decoded == Self.steps.map(\.frame))
    }
}
