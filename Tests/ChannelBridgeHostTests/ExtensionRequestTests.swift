import ChannelBridgeTestSupport
import ChannelBridgeCodec
import ChannelBridgeHost
import Testing

@Suite struct ExtensionRequestTests {
    @Test func theRequestEndsExactlyOnce() async {
        let request = ExtensionRequest(inputItems: [])
        #expect(!request.hasEnded && request.completionRecord == nil)
        request.recordOpenedURL(OpenedURL(url: "u", opened: false))
        #expect(request.end(.completed, returnedItems: .list(["x"])) == nil)
        #expect(request.end(.cancelled, error: MethodError(code: "late")) == .completed)
        #expect(request.end(.expired) == .completed)
        let ending = await request.waitForEnd()
        #expect(ending.outcome == .completed && ending.returnedItems == .list(["x"]) && ending.error == nil)
        #expect(
            request.completionRecord
                == CompletionRecord(
                    outcome: .completed, returnedItems: .list(["x"]),
                    openedURLs: [OpenedURL(url: "u", opened: false)]))
    }

    /// What the public API gives a user of the library who builds a request by hand (a plugin's
    /// test, with `PluginEnvironment.extensionRequest`): input items from attachments, served as
    /// `getInputItems` answers them, and how the request ended, as a value and as the line the host
    /// prints.
    @Test func aRequestOfBuiltItemsEndsWithARecordToRead() throws {
        let items = [
            InputItem(title: "A page", attachments: [.text("hello"), .url("https://example.com/a b")]),
            InputItem(
                contentText: "c",
                attachments: [.file(path: "/shared/Photo.PNG"), .file(path: "/shared/n", name: "notes.txt")]),
        ]
        let request = ExtensionRequest(inputItems: items)
        #expect(request.inputItems == items)
        #expect(
            request.inputItems.map(\.standardValue) == [
                .map([
                    .init("title", "A page"),
                    .init(
                        "attachments",
                        .list([
                            ["typeIdentifier": "public.plain-text", "text": "hello"],
                            ["typeIdentifier": "public.url", "url": "https://example.com/a b"],
                        ])),
                ]),
                .map([
                    .init("contentText", "c"),
                    .init(
                        "attachments",
                        .list([
                            ["typeIdentifier": "public.image", "path": "/shared/Photo.PNG", "name": "Photo.PNG"],
                            ["typeIdentifier": "public.file-url", "path": "/shared/n", "name": "notes.txt"],
                        ])),
                ]),
            ])
        #expect(request.completionRecord == nil)
        #expect(request.end(.cancelled, error: MethodError(code: "USER_CANCELLED", message: "no")) == nil)
        let record = try #require(request.completionRecord)
        #expect(record.outcome == .cancelled)
        #expect(
            record.jsonLine
                == #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"USER_CANCELLED","message":"no","details":null},"openedURLs":[]}"#
        )
    }
}
