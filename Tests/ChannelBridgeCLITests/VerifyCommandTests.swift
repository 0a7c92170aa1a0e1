import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge verify` against real `extension-host` children: the hand-written transcript
/// passes, a changed expectation fails with the exact diff, and provider states are set up only
/// for a host verify starts.
@Suite struct VerifyCommandTests {
    static let handWritten = packageRoot.appendingPathComponent(
        "Protocol/vectors/transcripts/share-text-handwritten.json"
    ).path

    // Runs that expect the stream's event give it 30 s: the host's change stream is prompt, but the
    // suite runs many processes on two cores.
    static func handWrittenText() throws -> String {
        try String(contentsOfFile: handWritten, encoding: .utf8)
    }

    @Test func theHandWrittenTranscriptVerifiesAgainstAHostVerifyStarts() async throws {
        try await withHangGuard {
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["verify", "--transcript", Self.handWritten, "--start-host", "--event-timeout", "30"])
            #expect(outcome.stdout == "verified: 9 interactions\n")
            #expect(outcome.stderr == "")
            #expect(outcome.status == 0)
        }
    }

    @Test func aHostBinaryGivenIsStartedWithTheProviderStatesAndItsArguments() async throws {
        try await withHangGuard {
            let host = ProcessRunner.path(of: "extension-host")
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge",
                [
                    "verify", "--transcript", Self.handWritten, "--host-binary", host,
                    "--host-arg", "--app-group", "--host-arg", "group.other",
                    "--event-timeout", "30",
                ])
            // The host got the argument: its one group is group.other, and the preference was set up in group.local.
            #expect(
                outcome.stdout.split(separator: "\n").first
                    == #"mismatch: interaction 1 on shared_preference_app_group, method getInt: reply.success: expected {"$range":[0,100],"$type":"int32","example":{"int32":3}}, got null"#
            )
            #expect(outcome.status == 1)
        }
    }

    @Test func aChangedReplyOrEventFailsWithADiffNamingChannelMethodAndValue() async throws {
        // Three hosts started one after the other.
        try await withHangGuard(seconds: 90) {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let text = try Self.handWrittenText()
            let reply = try directory.write(
                "reply.json",
                text.replacingOccurrences(
                    of: #"["text", "hello"]]}]]]}]}}"#,
                    with: #"["text", "hullo"]]}]]]}]}}"#))
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["verify", "--transcript", reply, "--start-host", "--event-timeout", "30"])
            #expect(
                outcome.stdout
                    == #"mismatch: interaction 0 on channelbridge/extension, method getInputItems: reply.success[0].value("attachments")[0].value("text"): expected "hullo", got "hello""#
                    + "\n")
            #expect(outcome.status == 1)

            let event = try directory.write(
                "event.json",
                text.replacingOccurrences(
                    of: #"["value", "hi"]]}}], "end""#,
                    with: #"["value", "ho"]]}}], "end""#))
            let events = try await ProcessRunner.runOnThread(
                "channelbridge", ["verify", "--transcript", event, "--start-host", "--event-timeout", "30"])
            #expect(
                events.stdout
                    == #"mismatch: interaction 5 on shared_preference_app_group/changes, method listen: events[0].success.value("value"): expected "ho", got "hi""#
                    + "\n")
            #expect(events.status == 1)

            let code = try directory.write(
                "code.json", text.replacingOccurrences(of: #""code": "WRONG_TYPE""#, with: #""code": "TYPE_MISMATCH""#))
            let codes = try await ProcessRunner.runOnThread(
                "channelbridge", ["verify", "--transcript", code, "--start-host", "--event-timeout", "30"])
            #expect(
                codes.stdout
                    == #"mismatch: interaction 2 on shared_preference_app_group, method getString: reply.error.code: expected "TYPE_MISMATCH", got "WRONG_TYPE""#
                    + "\n")
            #expect(codes.status == 1)
        }
    }

    /// An interaction's own provider state is written just before it is sent: the counter reads
    /// 3 (the document's state), then 7, then 3 again after the client's own write. Without it the
    /// second read fails, naming the interaction.
    @Test func anInteractionsProviderStateIsSetUpJustBeforeIt() async throws {
        try await withHangGuard {
            let directory = try TestDirectory()
            defer { directory.remove() }
            func transcript(withState: Bool) -> String {
                let state =
                    withState
                    ? #", "given": {"preferences": [{"appGroup": "group.local", "key": "count", "value": {"int32": 7}}]}"#
                    : ""
                return """
                    {"transcript": 1,
                     "channels": {"shared_preference_app_group": {"kind": "method"}},
                     "given": {"preferences": [{"appGroup": "group.local", "key": "count", "value": {"int32": 3}}]},
                     "interactions": [
                      {"channel": "shared_preference_app_group", "call": {"method": "setAppGroup", "args": {"map": [["appGroup", "group.local"]]}}, "reply": {"success": null}},
                      {"channel": "shared_preference_app_group", "call": {"method": "getInt", "args": {"map": [["key", "count"]]}}, "reply": {"success": {"int32": 3}}},
                      {"channel": "shared_preference_app_group", "call": {"method": "getInt", "args": {"map": [["key", "count"]]}}, "reply": {"success": {"int32": 7}}\(state)},
                      {"channel": "shared_preference_app_group", "call": {"method": "setInt", "args": {"map": [["key", "count"], ["value", {"int32": 3}]]}}, "reply": {"success": null}},
                      {"channel": "shared_preference_app_group", "call": {"method": "getInt", "args": {"map": [["key", "count"]]}}, "reply": {"success": {"int32": 3}}}
                     ]}
                    """
            }
            let with = try directory.write("with.json", transcript(withState: true))
            let verified = try await ProcessRunner.runOnThread(
                "channelbridge", ["verify", "--transcript", with, "--start-host"])
            #expect(verified.stdout == "verified: 5 interactions\n")
            #expect(verified.status == 0)
            let without = try directory.write("without.json", transcript(withState: false))
            let failed = try await ProcessRunner.runOnThread(
                "channelbridge", ["verify", "--transcript", without, "--start-host"])
            #expect(
                failed.stdout
                    == "mismatch: interaction 2 on shared_preference_app_group, method getInt: reply.success: expected {\"int32\":7}, got {\"int32\":3}\n"
            )
            #expect(failed.status == 1)
        }
    }

    /// A host that answers one reply differently (a real host process, its input item's text
    /// changed before it starts) fails verify with the diff naming channel, method and value.
    @Test func aHostThatAnswersDifferentlyFailsWithTheDiff() async throws {
        try await withHangGuard {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let host = ProcessRunner.path(of: "extension-host")
            let changed = try directory.write(
                "changed-host",
                """
                #!/usr/bin/env bash
                # extension-host, with the text of the input items it is given changed.
                args=("$@")
                for ((i = 0; i < ${#args[@]}; i++)); do
                  if [ "${args[$i]}" = --items ]; then sed -i 's/hello/hullo/g' "${args[$((i + 1))]}"; fi
                done
                exec '\(host)' "$@"

                """)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: changed)
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge",
                ["verify", "--transcript", Self.handWritten, "--host-binary", changed, "--event-timeout", "30"])
            #expect(
                outcome.stdout
                    == #"mismatch: interaction 0 on channelbridge/extension, method getInputItems: reply.success[0].value("attachments")[0].value("text"): expected "hello", got "hullo""#
                    + "\n")
            #expect(outcome.status == 1)
        }
    }

    @Test func againstARunningHostTheProviderStatesAreNotSetUpAndVerifySaysSo() async throws {
        try await withHangGuard {
            // A host started without the items and preferences: getInputItems answers one empty item.
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let outcome = try await live.channelbridge([
                "verify", "--transcript", Self.handWritten, "--event-timeout", "0.5",
            ])
            #expect(
                outcome.stderr
                    == "channelbridge verify: note: the transcript's provider states (given) were not set up: the host at \(live.socket) was not started by verify (see --help)\n"
            )
            #expect(
                outcome.stdout.split(separator: "\n").first
                    == #"mismatch: interaction 0 on channelbridge/extension, method getInputItems: reply.success[0].value("attachments"): expected [{"map":[["typeIdentifier","public.plain-text"],["text","hello"]]}], got []"#
            )
            #expect(outcome.status == 1)
        }
    }

    @Test func theMockServingATranscriptVerifiesAgainstIt() async throws {
        try await withHangGuard {
            let (directory, mock) = try await MockCommandTests.startMock(try Self.handWrittenText(), ["--once"])
            defer { directory.remove() }
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge",
                ["verify", "--transcript", Self.handWritten, "--socket", directory.socket, "--event-timeout", "30"])
            #expect(outcome.stdout == "verified: 9 interactions\n")
            #expect(outcome.status == 0)
            let exit = await mock.waitForExit()
            #expect(exit.stderr == "")
            #expect(exit.status == 0)
        }
    }
}
