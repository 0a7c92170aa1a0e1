// How to test a plugin of your own with a TestMessenger: register it on `test.messenger`, call it
// from the test's side with `test.invokeMethod`, and assert on the exchange the recorder saw —
// which calls arrived, and the exact reply to each, errors and "not implemented" included.

import ChannelBridge
import ChannelBridgeTesting
import GreeterPlugin
import Testing

@Suite struct GreeterPluginRecordingTests {
    /// A test messenger with the plugin registered on it, as a host would register it.
    func makeTest() async throws -> TestMessenger {
        let test = TestMessenger()
        try await PluginRegistry(messenger: test.messenger).register(GreeterPlugin.self)
        return test
    }

    @Test func theRecorderShowsEveryCallAndItsReply() async throws {
        let test = try await makeTest()
        defer { test.close() }

        #expect(
            try await test.invokeMethod(channel: "example/greeter", method: "greet", arguments: ["name": "Ada"])
                == "Hello, Ada!")
        #expect(try await test.invokeMethod(channel: "example/greeter", method: "greetings") == 1)
        _ = try? await test.invokeMethod(channel: "example/greeter", method: "greet", arguments: ["nom": "Ada"])
        _ = try? await test.invokeMethod(channel: "example/greeter", method: "wave")

        let recorder = test.recorder
        #expect(recorder.calls(on: "example/greeter").map(\.method) == ["greet", "greetings", "greet", "wave"])
        #expect(
            recorder.replies(on: "example/greeter").map { $0?.envelope } == [
                .success("Hello, Ada!"),
                .success(1),
                .error(MethodError(code: "INVALID_ARGUMENTS", message: "`name`: missing")),
                nil,  // no envelope at all: a null reply, "not implemented"
            ])
        #expect(recorder.replies(on: "example/greeter").last == .null)
        // The plugin only answered: it sent nothing of its own.
        #expect(recorder.records(on: "example/greeter", direction: .sent).isEmpty)
    }

    @Test func theRawBytesAreThereToo() async throws {
        let test = try await makeTest()
        defer { test.close() }
        _ = try await test.invokeMethod(channel: "example/greeter", method: "greetings")

        let record = try #require(test.recorder.records.first)
        // StandardMethodCodec: the method name as a string value (07, length, UTF-8), then null.
        #expect(record.payload == [0x07, 0x09] + Array("greetings".utf8) + [0x00])
        // A success envelope (00) holding the int32 0 (03, four bytes little-endian).
        #expect(record.reply?.bytes == [0x00, 0x03, 0x00, 0x00, 0x00, 0x00])
        // When a test fails, the transcript says what crossed, one line per message.
        #expect(test.recorder.transcript.hasPrefix("#1 received request example/greeter greetings"))
    }
}
