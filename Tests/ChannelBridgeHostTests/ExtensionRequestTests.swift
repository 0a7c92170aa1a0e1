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
        #expect(request.completionRecord == CompletionRecord(outcome: .completed, returnedItems: .list(["x"]),
                                                            openedURLs: [OpenedURL(url: "u", opened: false)]))
    }
}
