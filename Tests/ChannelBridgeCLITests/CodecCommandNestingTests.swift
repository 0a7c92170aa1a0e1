import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// `channelbridge codec decode` then `codec encode` as real processes, for values at the nesting
/// limit whose TVN nests deepest (typed-value-notation.md §6): what one prints, the other reads.
@Suite struct CodecCommandNestingTests {
    static let deepMessages: [String] = {
        // 1,000 maps {int32 0: …} (7 bytes a level) around a Float32List [0.5], whose elements
        // are aligned from the message start: tag at 7,000, size at 7,001, two padding bytes.
        let deepest = String(repeating: "0d01" + "0300000000", count: 1_000) + "0e01" + "0000" + "0000003f"
        return [
            String(repeating: "0d0100", count: 334) + "00",  // 1,002 JSON levels
            String(repeating: "0c01", count: 1_000) + "00",  // 1,000 lists
            deepest,  // 3,002 JSON levels
        ]
    }()

    @Test func decodedTextEncodesBackToTheSameBytes() async throws {
        let input = Self.deepMessages.joined(separator: "\n") + "\n"
        let decoded = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "decode", "--codec", "standard"], stdin: input)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(!decoded.stdout.contains("error"))
        let encoded = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "standard"], stdin: decoded.stdout)
        #expect(encoded.status == 0, "\(encoded.stdout)")
        #expect(encoded.stdout == input)
    }

    /// A method call's shape wraps the value in one more JSON level.
    @Test func methodShapesCarryValuesAtTheLimit() async throws {
        let arguments = try StandardMessageCodec().decode(hex(Self.deepMessages[2]))
        let line = #"{"method": "m", "args": "# + TypedValueNotation.canonicalText(arguments) + "}\n"
        let encoded = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "standard-method", "--kind", "call"],
            stdin: line)
        #expect(encoded.status == 0, "\(encoded.stdout)")
        #expect(
            encoded.stdout == hexString(
                try StandardMethodCodec().encodeMethodCall(MethodCall("m", arguments: arguments))) + "\n")
    }

    @Test func oneLevelPastTheLimitIsANestingError() async throws {
        let tooDeep = String(repeating: "[", count: 1_001) + String(repeating: "]", count: 1_001) + "\n"
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "standard"], stdin: tooDeep)
        #expect(outcome.status == 1)
        #expect(
            outcome.stdout == "error: $" + String(repeating: "[0]", count: 1_000)
                + ": lists and maps nest deeper than 1000 levels\n")
    }
}
