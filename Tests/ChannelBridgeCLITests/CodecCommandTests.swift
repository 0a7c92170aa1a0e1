import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge codec` run as a real process: exact stdout, stderr and exit statuses.
@Suite struct CodecCommandTests {
    @Test func encodeStreamsOneLinePerInputAndReportsBadLines() async throws {
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "standard"],
            stdin: "{\"int32\": 1}\nnot json\n\n[\"abc\", {\"float64\": 1.5}]\n")
        #expect(
            outcome.stdout
                == "0301000000\nerror: not JSON: invalid literal (at byte 0)\n0c02070361626306000000000000f83f\n")
        #expect(outcome.status == 1)
    }

    @Test func decodePrintsCanonicalTVN() async throws {
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "decode", "--codec", "standard"],
            stdin: "0d01070161060000000000000000f83f\n0cffffffffff\n")
        #expect(
            outcome.stdout
                == "{\"map\":[[\"a\",{\"float64\":1.5}]]}\nerror: list claims 4294967295 elements but only 0 bytes are left (at byte 0)\n"
        )
        #expect(outcome.status == 1)
    }

    @Test func methodKinds() async throws {
        let encode = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "standard-method", "--kind", "error"],
            stdin: #"{"code": "E", "message": null, "details": null, "stacktrace": "at a"}"# + "\n")
        #expect(encode.stdout == "010701450000070461742061\n")
        #expect(encode.status == 0)
        let decode = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "decode", "--codec", "standard-method", "--kind", "envelope"],
            stdin: "010701450000070461742061\n0006000000000000000000000000f83f\n")
        #expect(
            decode.stdout == #"{"code":"E","message":null,"details":null,"stacktrace":"at a"}"# + "\n"
                + #"{"result":{"float64":1.5}}"# + "\n")
        let json = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "json-method", "--kind", "call"],
            stdin: #"{"method": "exit", "args": {"map": [["k", {"int32": 1}]]}}"# + "\n")
        #expect(
            json.stdout == Array(#"{"method":"exit","args":{"k":1}}"#.utf8).map { String(format: "%02x", $0) }.joined()
                + "\n")
    }

    @Test(
        arguments: [
            (["codec"], "channelbridge codec: missing encode, decode or serve"),
            (["codec", "encode"], "channelbridge codec: missing --codec"),
            (
                ["codec", "encode", "--codec", "xml"],
                "channelbridge codec: unknown codec 'xml'; use one of: standard, standard-method, json, json-method"
            ),
            (
                ["codec", "decode", "--codec", "standard-method", "--kind", "success"],
                "channelbridge codec: kind 'success' for decode with codec standard-method; use one of: call, envelope"
            ),
            (["codec", "encode", "--codec"], "channelbridge codec: --codec needs a value"),
            (["nope"], nil),
        ] as [([String], String?)])
    func usageErrorsExit64(arguments: [String], firstLine: String?) async throws {
        let outcome = try await ProcessRunner.runOnThread("channelbridge", arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        if let firstLine {
            #expect(outcome.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        } else {
            #expect(outcome.stderr.hasPrefix("channelbridge: unknown command 'nope'"))
        }
    }

    @Test func helpOnEveryLevel() async throws {
        let top = try await ProcessRunner.runOnThread("channelbridge", ["--help"])
        #expect(top.status == 0)
        #expect(top.stdout.contains("codec"))
        let codec = try await ProcessRunner.runOnThread("channelbridge", ["codec", "--help"])
        #expect(codec.status == 0)
        #expect(codec.stdout.hasPrefix("usage: channelbridge codec encode"))
        let encode = try await ProcessRunner.runOnThread("channelbridge", ["codec", "encode", "--help"])
        #expect(encode.status == 0)
    }

    @Test func handlesManyLinesStreaming() async throws {
        let input = (0..<100_000).map { "{\"int32\": \($0)}" }.joined(separator: "\n") + "\n"
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "encode", "--codec", "standard"], stdin: input)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(outcome.status == 0)
        #expect(lines.count == 100_000)
        #expect(lines.last == "039f860100")
    }

    @Test func serveAnswersThePeerLineProtocol() async throws {
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge", ["codec", "serve"],
            stdin: """
                encode standard message {"int32":2}
                decode json-method envelope 5b315d
                decode standard message 0f
                encode standard-method kind {}
                bogus

                """)
        #expect(
            outcome.stdout == """
                ok 0302000000
                ok {"result":{"int32":1}}
                error unknown type 15 (at byte 0)
                error kind 'kind' for encode with codec standard-method; use one of: call, success, error
                error malformed request: expected '<encode|decode> <codec> <kind> <payload>'

                """)
        #expect(outcome.status == 0)
    }
}
