import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge mock` as a child process on a real socket, called by `channelbridge` children:
/// replies from the transcript, UNEXPECTED_CALL, and the end report with its exit status.
@Suite struct MockCommandTests {
    static let twoCalls = #"""
        {"transcript": 1, "channels": {"c": {"kind": "method"}},
         "interactions": [
          {"channel": "c", "call": {"method": "getString", "args": {"map": [["key", "a"]]}}, "reply": {"success": "x"}},
          {"channel": "c", "call": {"method": "exit"}, "reply": {"success": null}}]}
        """#

    /// A mock serving `transcript` on a fresh directory, past its ready line.
    static func startMock(_ transcript: String, _ options: [String] = []) async throws -> (TestDirectory, HostProcess) {
        let directory = try TestDirectory()
        let file = try directory.write("transcript.json", transcript)
        let mock = try HostProcess(
            ["mock", "--transcript", file, "--socket", directory.socket] + options, product: "channelbridge")
        #expect(try await mock.readyLine() == "ready \(directory.socket)")
        return (directory, mock)
    }

    @Test func matchedCallsAreAnsweredAndACompleteSessionExitsZero() async throws {
        try await withHangGuard {
            let (directory, mock) = try await Self.startMock(Self.twoCalls)
            defer { directory.remove() }
            let first = try await ProcessRunner.runOnThread(
                "channelbridge", ["call", "c", "getString", #"{"key": "a"}"#, "--socket", directory.socket])
            #expect(first.stdout == "\"x\"\n")
            #expect(first.status == 0)
            let second = try await ProcessRunner.runOnThread(
                "channelbridge", ["call", "c", "exit", "--socket", directory.socket])
            #expect(second.stdout == "null\n")
            mock.send(signal: SIGTERM)
            let exit = await mock.waitForExit()
            #expect(exit.stderr == "")
            #expect(exit.status == 0)
        }
    }

    @Test func anUnexpectedCallFailsTheClientAndTheReportListsItAndWhatWasMissed() async throws {
        try await withHangGuard {
            let (directory, mock) = try await Self.startMock(Self.twoCalls, ["--once"])
            defer { directory.remove() }
            let call = try await ProcessRunner.runOnThread(
                "channelbridge", ["call", "c", "getString", #"{"key": "b"}"#, "--socket", directory.socket])
            let unexpected =
                #"unexpected call getString {"map":[["key","b"]]} on c; nearest recorded: interaction 0 (getString {"map":[["key","a"]]}): args.value("key"): expected "a", got "b""#
            #expect(
                call.stderr == "channelbridge call: remote error UNEXPECTED_CALL: \(unexpected)\n"
                    + #"details: {"map":[["channel","c"],["method","getString"],["nearest",{"int32":0}]]}"# + "\n")
            #expect(call.status == 1)
            // --once: the client gone ends the mock.
            let exit = await mock.waitForExit()
            #expect(
                exit.stderr == """
                    missing: interaction 0 on c: getString {"map":[["key","a"]]}
                    missing: interaction 1 on c: exit null
                    unexpected: \(unexpected)

                    """)
            #expect(exit.status == 1)
        }
    }

    @Test func aTranscriptThatCannotBeReadIsExit65NamingTheField() async throws {
        try await withHangGuard {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let file = try directory.write(
                "bad.json", #"{"transcript": 1, "channels": {}, "interactions": [{"channel": "c"}]}"#)
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["mock", "--transcript", file, "--socket", directory.socket])
            #expect(
                outcome.stderr
                    == "channelbridge mock: \(file): transcript: interactions[0].channel: the channel 'c' is not in 'channels'\n"
            )
            #expect(outcome.status == 65)
            let unsendable = try directory.write(
                "unsendable.json",
                #"""
                {"transcript": 1, "channels": {"c": {"kind": "method"}},
                 "interactions": [{"channel": "c", "call": {"method": "m"}, "reply": {"success": {"$any": "string"}}}]}
                """#)
            let refused = try await ProcessRunner.runOnThread(
                "channelbridge", ["mock", "--transcript", unsendable, "--socket", directory.socket])
            #expect(
                refused.stderr
                    == "channelbridge mock: \(unsendable): interactions[0].reply: a matcher without an example cannot be sent\n"
            )
            #expect(refused.status == 65)
        }
    }

    @Test func theHandWrittenVectorIsServedToTheCLI() async throws {
        try await withHangGuard {
            let text = try String(
                contentsOf: packageRoot.appendingPathComponent(
                    "Protocol/vectors/transcripts/share-text-handwritten.json"),
                encoding: .utf8)
            let (directory, mock) = try await Self.startMock(text, ["--once"])
            defer { directory.remove() }
            let items = try await ProcessRunner.runOnThread("channelbridge", ["items", "--socket", directory.socket])
            #expect(
                items.stdout
                    == #"[{"map":[["attachments",[{"map":[["typeIdentifier","public.plain-text"],["text","hello"]]}]]]}]"#
                    + "\n")
            let exit = await mock.waitForExit()
            #expect(
                exit.stderr.split(separator: "\n").first
                    == #"missing: interaction 1 on shared_preference_app_group: getInt {"map":[["key","count"]]}"#)
            #expect(exit.stderr.split(separator: "\n").count == 8)
            #expect(exit.status == 1)
        }
    }
}
