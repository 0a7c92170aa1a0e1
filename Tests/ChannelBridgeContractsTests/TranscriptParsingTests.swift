@testable import ChannelBridgeContracts
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Foundation
import Testing

private let transcriptsDirectory = packageRoot.appendingPathComponent("Protocol/vectors/transcripts")

/// A transcript with one method channel `c` and `interactions` (a JSON array's inside).
private func document(
    _ interactions: String,
    channels: String = #""c": {"kind": "method"}, "e": {"kind": "event"}, "m": {"kind": "message"}"#
) -> String {
    #"{"transcript": 1, "channels": {\#(channels)}, "interactions": [\#(interactions)]}"#
}

/// Reading transcripts (Protocol/transcript.md §1–§2): the model, and errors that name the line
/// or the field.
@Suite struct TranscriptParsingTests {
    @Test func theHandWrittenVectorReads() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: transcriptsDirectory.path).sorted()
        where name.hasSuffix(".json") {
            _ = try Transcript(contentsOfFile: transcriptsDirectory.appendingPathComponent(name).path)
        }
        let transcript = try Transcript(
            contentsOfFile: transcriptsDirectory.appendingPathComponent("share-text-handwritten.json").path)
        #expect(transcript.interactions.count == 9)
        #expect(
            transcript.channels["shared_preference_app_group/changes"]
                == .init(kind: .event, codec: .standard, order: .sequence))
        #expect(transcript.given.preferences == [.init(appGroup: "group.local", key: "count", value: .int32(3))])
        let first = transcript.interactions[0]
        #expect(
            first.action
                == .call(
                    method: "getInputItems", arguments: .exact(.null),
                    reply: .success(
                        .exact(.list([["attachments": [["typeIdentifier": "public.plain-text", "text": "hello"]]]])))))
        #expect(first.hex == Array("\u{07}\u{0d}getInputItems\u{00}".utf8))
        #expect(
            transcript.interactions[3].action
                == .call(method: "selfDestruct", arguments: .exact(.null), reply: .notImplemented))
        guard case .stream(let arguments, let reply, let events, let end) = transcript.interactions[5].action else {
            Issue.record("interaction 5 is not a stream")
            return
        }
        #expect(arguments == .exact(["keys": ["greeting"]]))
        #expect(reply == .success(.exact(.null)))
        #expect(events == [.success(.exact(["key": "greeting", "value": "hi"]))])
        #expect(!end)
    }

    @Test func everyKindOfInteractionAndReplyReads() throws {
        let transcript = try Transcript(
            json: document(
                #"""
                {"channel": "c", "call": {"method": "a"}, "reply": {"error": {"code": "E", "message": "m", "details": {"int32": 1}}}},
                {"channel": "e", "listen": null, "events": [{"error": {"code": "X"}}, {"success": "v"}], "end": true},
                {"channel": "e", "cancel": null},
                {"channel": "m", "send": "hi", "reply": null, "hex": "07026869", "replyHex": "00"},
                {"channel": "m", "from": "host", "post": {"int32": 2}}
                """#))
        #expect(
            transcript.interactions.map(\.action) == [
                .call(
                    method: "a", arguments: .exact(.null),
                    reply: .error(code: "E", message: .exact("m"), details: .exact(.int32(1)))),
                .stream(
                    arguments: .exact(.null), reply: .success(.exact(.null)),
                    events: [.error(code: "X", message: .exact(.null), details: .exact(.null)), .success(.exact("v"))],
                    end: true),
                .cancel(arguments: .exact(.null), reply: .success(.exact(.null))),
                .send(message: .exact("hi"), reply: .exact(.null)),
                .post(message: .exact(.int32(2))),
            ])
        #expect(transcript.interactions[4].from == .host)
        #expect(transcript.interactions[3].replyHex == [0])
    }

    /// An interaction's own provider states: preferences only, kept in order; input items there are
    /// an error that says where they belong.
    @Test func anInteractionsGivenHoldsPreferencesOnly() throws {
        let transcript = try Transcript(
            json: document(
                #"{"channel": "c", "call": {"method": "a"}, "reply": {"success": null},"#
                    + #" "given": {"preferences": [{"appGroup": "group.local", "key": "k", "value": {"int32": 7}},"#
                    + #" {"appGroup": "group.local", "key": "s", "value": "x"}]}}"#))
        #expect(
            transcript.interactions[0].given == [
                .init(appGroup: "group.local", key: "k", value: .int32(7)),
                .init(appGroup: "group.local", key: "s", value: .string("x")),
            ])
        #expect(transcript.given.isEmpty)
        #expect(
            throws: TranscriptError(
                location: "interactions[0].given",
                "input items are the host's from its start: give them in the document's 'given'")
        ) {
            try Transcript(
                json: document(
                    #"{"channel": "c", "call": {"method": "a"}, "reply": {"success": null}, "given": {"inputItems": []}}"#
                ))
        }
    }

    @Test func aJSONSyntaxErrorNamesItsLineAndColumn() {
        #expect(throws: TranscriptError(location: "line 3, column 11", "not JSON: unexpected character ','")) {
            try Transcript(json: "{\n \"transcript\": 1,\n \"about\": ,\n}")
        }
    }

    @Test func structuralErrorsNameTheField() {
        let cases: [(String, TranscriptError)] = [
            (
                #"{"channels": {}, "interactions": []}"#,
                TranscriptError(location: "", "the member 'transcript' (the format version, 1) is missing")
            ),
            (
                #"{"transcript": 2, "channels": {}, "interactions": []}"#,
                TranscriptError(location: "transcript", "unsupported transcript version 2 (this reader knows 1)")
            ),
            (
                document("", channels: #""c": {"kind": "method", "codec": "binary"}"#),
                TranscriptError(
                    location: #"channels["c"].codec"#, #"unknown codec "binary" (this reader knows standard and json)"#)
            ),
            (
                document(
                    #"{"channel": "c", "call": {"method": "a"}, "reply": {"success": null}}, {"channel": "x", "post": null}"#
                ),
                TranscriptError(location: "interactions[1].channel", "the channel 'x' is not in 'channels'")
            ),
            (
                document(#"{"channel": "c", "call": {"method": "a"}, "reply": {"error": {"message": "m"}}}"#),
                TranscriptError(location: "interactions[0].reply.error", "the member 'code' is missing")
            ),
            (
                document(#"{"channel": "c", "call": {"method": "a"}, "replay": {"success": null}}"#),
                TranscriptError(
                    location: "interactions[0]",
                    "unknown member 'replay' (expected: call, cancel, channel, end, events, from, given, hex, listen, post, reply, replyHex, send)"
                )
            ),
            (
                document(
                    #"{"channel": "c", "call": {"method": "a", "args": {"int32": 1e3}}, "reply": {"success": null}}"#),
                TranscriptError(
                    location: "interactions[0].call.args",
                    "not a TVN value: $.int32: expected an integer that fits in 32 bits")
            ),
            (
                document(#"{"channel": "c", "listen": null}"#),
                TranscriptError(
                    location: "interactions[0].listen",
                    "'listen' on the method channel 'c' (needs a channel of kind event)")
            ),
            (
                document(#"{"channel": "c", "call": {"method": "a"}, "post": null, "reply": {"success": null}}"#),
                TranscriptError(
                    location: "interactions[0]",
                    "an interaction has one of call, listen, cancel, send, post, got call and post")
            ),
            (
                document(#"{"channel": "c", "call": {"method": "a"}, "reply": {"success": null}, "hex": "070162ff"}"#),
                TranscriptError(
                    location: "interactions[0].hex", "the bytes do not decode with the standard codec: unknown type 255"
                )
            ),
            (
                document(#"{"channel": "c", "call": {"method": "a"}, "reply": {"success": null}, "hex": "07016200"}"#),
                TranscriptError(location: "interactions[0].hex", "the bytes carry the method 'b', not 'a'")
            ),
            (
                document(
                    #"{"channel": "c", "call": {"method": "a"}, "reply": {"success": {"int32": 2}}, "replyHex": "000301000000"}"#
                ),
                TranscriptError(
                    location: "interactions[0].replyHex",
                    "the bytes do not match the reply beside them: reply.success: expected {\"int32\":2}, got {\"int32\":1}"
                )
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try Transcript(json: text) }
        }
    }
}
