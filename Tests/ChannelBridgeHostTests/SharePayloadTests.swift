import ChannelBridgeTestSupport
import ChannelBridgeCodec
import ChannelBridgeHost
import Testing

@Suite struct SharePayloadTests {
    @Test func thePayloadIsTheSeedExtensionsJSON() {
        let items = [
            InputItem(attachments: [
                .text("a \"b\""), .url("https://x/y z"),
                .file(path: "/c/cat photo.png"), .file(path: "/c/v.MOV"), .file(path: "/c/d.pdf"),
            ]),
            InputItem(attachments: [.text("second item")]),
        ]
        #expect(
            SharePayload.json(for: items) == #"{"text":["a \"b\"","https://x/y z","second item"],"files":["#
                + #"{"path":"file:///c/cat%20photo.png","thumbnail":null,"duration":null,"type":0},"#
                + #"{"path":"file:///c/v.MOV","thumbnail":null,"duration":null,"type":1},"#
                + #"{"path":"file:///c/d.pdf","thumbnail":null,"duration":null,"type":2}]}"#)
        #expect(SharePayload.json(for: []) == #"{"text":[],"files":[]}"#)
    }
}
