import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// `channelbridge call|send|items|exit|cancel` against a real `extension-host` child: exact stdout,
/// stderr and exit statuses.
@Suite struct ClientCommandTests {
    @Test func callPrintsTheResultAsCanonicalTVN() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--text", "hi", "--url", "https://e.x/a"])
            defer { Task { _ = await live.stop() } }
            let items = try await live.channelbridge(["call", "channelbridge/extension", "getInputItems"])
            #expect(
                items.stdout
                    == #"[{"map":[["attachments",[{"map":[["typeIdentifier","public.plain-text"],["text","hi"]]},{"map":[["typeIdentifier","public.url"],["url","https://e.x/a"]]}]]]}]"#
                    + "\n")
            #expect(items.status == 0)
            #expect(items.stderr == "")
            let json = try await live.channelbridge(["items", "--json"])
            #expect(
                json.stdout
                    == #"[{"attachments":[{"typeIdentifier":"public.plain-text","text":"hi"},{"typeIdentifier":"public.url","url":"https://e.x/a"}]}]"#
                    + "\n")
            let set = try await live.channelbridge([
                "call", "shared_preference_app_group", "setInt", #"{"key": "n", "value": 5000000000}"#,
            ])
            #expect(set.stdout == "null\n")
            let get = try await live.channelbridge(["call", "shared_preference_app_group", "get", #"{"key": "n"}"#])
            #expect(get.stdout == #"{"int64":"5000000000"}"# + "\n")
        }
    }

    @Test func aRemoteErrorExits1WithCodeMessageAndDetails() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let outcome = try await live.channelbridge([
                "call", "shared_preference_app_group", "setAppGroup", #"{"appGroup": "group.other"}"#,
            ])
            #expect(outcome.status == 1)
            #expect(outcome.stdout == "")
            #expect(outcome.stderr.hasPrefix("channelbridge call: remote error APP_GROUP_NOT_ENTITLED: "))
            #expect(outcome.stderr.contains("\ndetails: {\"map\":[[\"appGroup\",\"group.other\"]"))
        }
    }

    @Test func notImplementedNamesChannelAndMethod() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let outcome = try await live.channelbridge(["call", "channelbridge/extension", "teleport"])
            #expect(outcome.status == 1)
            // The channel lists its methods (reflection), so the line says the method is missing.
            #expect(
                outcome.stderr == "channelbridge call: no method 'teleport' on channel 'channelbridge/extension'; "
                    + "run 'channelbridge list channelbridge/extension' for its methods\n")
        }
    }

    @Test func badTVNExits65AndUsageExits64() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let bad = try await live.channelbridge(["call", "shared_preference_app_group", "getString", "{key"])
            #expect(bad.status == 65)
            #expect(
                bad.stderr
                    == "channelbridge call: ARGS is not valid typed value notation: not JSON: expected a string key (at byte 1)\n"
            )
            let usage = try await live.channelbridge(["call", "only-a-channel"])
            #expect(usage.status == 64)
            #expect(usage.stderr.hasPrefix("channelbridge call: needs CHANNEL and METHOD\n"))
            let codec = try await live.channelbridge(["call", "a", "b", "--codec", "xml"])
            #expect(codec.status == 64)
        }
    }

    @Test func anUnreachableHostExits69() async throws {
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge", ["items", "--socket", "/tmp/cb-nothing-here.sock", "--timeout", "0.2"])
        #expect(outcome.status == 69)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr == "channelbridge items: cannot reach a host at /tmp/cb-nothing-here.sock: "
                + "no host is listening there (no socket file after 0.2 s; it may have finished)\n")
    }

    /// A socket directory another user controls is not used, whatever is in it.
    @Test(.enabled(if: geteuid() == 0)) func aSocketDirectoryOfAnotherUserIsRefused() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socketDirectory = directory.path + "/run"
        #expect(mkdir(socketDirectory, 0o777) == 0)
        #expect(chmod(socketDirectory, 0o777) == 0)
        #expect(chown(socketDirectory, 12345, 12345) == 0)
        let socket = socketDirectory + "/h.sock"
        let outcome = try await ProcessRunner.runOnThread("channelbridge", ["items", "--socket", socket])
        #expect(outcome.status == 69)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr == "channelbridge items: cannot reach a host at \(socket): the socket directory "
                + "\(socketDirectory) (owner uid 12345, mode 0777) is owned by neither this user (uid 0) nor root, and "
                + "is writable by others without the sticky bit; remove it or use a socket path in a directory only "
                + "this user can write to\n")
    }

    /// A socket file whose host died without removing it (killed) refuses connections.
    @Test func aStaleSocketFileSaysNoHostIsListening() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { live.directory.remove() }
            live.host.send(signal: SIGKILL)
            _ = await live.host.waitForExit()
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["exit", "--socket", live.socket, "--timeout", "0.2"])
            #expect(outcome.status == 69)
            #expect(
                outcome.stderr == "channelbridge exit: cannot reach a host at \(live.socket): "
                    + "no host is listening there (a stale socket file after 0.2 s; it may have finished)\n")
        }
    }

    /// Each command is a session of its own: the one-shot `call` says so when the host wants a
    /// group chosen first.
    @Test func appGroupHasNotBeenSetGetsAHintTowardsSession() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a", "--app-group", "group.b"])
            defer { Task { _ = await live.stop() } }
            let chosen = try await live.channelbridge([
                "call", "shared_preference_app_group", "setAppGroup", #"{"appGroup": "group.a"}"#,
            ])
            #expect(chosen.status == 0)
            let outcome = try await live.channelbridge([
                "call", "shared_preference_app_group", "getInt", #"{"key": "launches"}"#,
            ])
            #expect(outcome.status == 1)
            #expect(outcome.stdout == "")
            #expect(
                outcome.stderr == """
                    channelbridge call: remote error APP_GROUP_HAS_NOT_BEEN_SET: You need to call setAppGroup before getInt; this session has no app group (entitled app groups: group.a, group.b)
                    details: {"map":[["method","getInt"],["entitledAppGroups",["group.a","group.b"]]]}
                    hint: each channelbridge command is a session of its own, so a setAppGroup made by an earlier command is gone; choose the group in the same session with 'channelbridge session', or use 'channelbridge prefs … --app-group GROUP'

                    """)
        }
    }

    @Test func setDoubleWithABareIntegerGetsAHint() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let outcome = try await live.channelbridge([
                "call", "shared_preference_app_group", "setDouble", #"{"key": "x", "value": 3}"#,
            ])
            #expect(outcome.status == 1)
            #expect(
                outcome.stderr == """
                    channelbridge call: remote error INVALID_ARGUMENTS: setDouble: the argument 'value' for key 'x' must be double or null, got int (int32)
                    details: {"map":[["method","setDouble"],["argument","value"]]}
                    hint: a bare 3 is an int in typed value notation; write 3.0 or {"float64": 3} for a double, or use 'channelbridge prefs set KEY 3 --type double'

                    """)
            let fixed = try await live.channelbridge([
                "call", "shared_preference_app_group", "setDouble", #"{"key": "x", "value": 3.0}"#,
            ])
            #expect(fixed.status == 0)
            #expect(try await live.channelbridge(["prefs", "get", "x"]).stdout == #"{"float64":3.0}"# + "\n")
        }
    }

    @Test func sendEchoesThroughEveryCodec() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--echo"])
            defer { Task { _ = await live.stop() } }
            #expect(
                try await live.channelbridge(["send", "channelbridge/echo", "00ff10", "--codec", "binary"]).stdout
                    == "00ff10\n")
            #expect(
                try await live.channelbridge(["send", "channelbridge/echo", "héllo", "--codec", "string"]).stdout
                    == "héllo\n")
            #expect(
                try await live.channelbridge(["send", "channelbridge/echo", #"{"a": [1, 2.5]}"#]).stdout
                    == #"{"map":[["a",[{"int32":1},{"float64":2.5}]]]}"# + "\n")
            #expect(
                try await live.channelbridge(["send", "channelbridge/echo", #"{"a": [1, 2.5]}"#, "--codec", "json"])
                    .stdout
                    == #"{"map":[["a",[{"int32":1},{"float64":2.5}]]]}"# + "\n")
            #expect(
                try await live.channelbridge(["send", "channelbridge/echo", "", "--codec", "binary"]).stdout == "\n")
            let bad = try await live.channelbridge(["send", "channelbridge/echo", "0g", "--codec", "binary"])
            #expect(bad.status == 65)
            let json = try await live.channelbridge(["send", "channelbridge/echo", "x", "--codec", "string", "--json"])
            #expect(json.status == 64)
            #expect(
                json.stderr
                    == "channelbridge send: --json goes with --codec standard or json (a string reply is printed as it is)\n"
                    + "Run 'channelbridge send --help' for usage.\n")
        }
    }

    /// A null reply is what a channel with no handler answers: reported as `call` reports a channel
    /// the host's reflection does not list.
    @Test func sendToAChannelWithNoHandlerExits1() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            for codec in ["standard", "json", "string", "binary"] {
                let outcome = try await live.channelbridge(["send", "no/handler", "10", "--codec", codec])
                #expect(outcome.status == 1, "\(codec)")
                #expect(outcome.stdout == "", "\(codec)")
                #expect(
                    outcome.stderr
                        == "channelbridge send: no channel 'no/handler' on this host; run 'channelbridge list' for the channels it serves\n",
                    "\(codec)")
            }
        }
    }

    @Test func exitCompletesTheRequest() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            let outcome = try await live.channelbridge(["exit", #"["done"]"#])
            #expect(outcome.status == 0)
            #expect(outcome.stdout == "")
            let exit = await live.host.waitForExit()
            defer { live.directory.remove() }
            #expect(exit.status == 0)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"completed","returnedItems":["done"],"error":null,"openedURLs":[]}"#)
            // The host has finished and removed its socket file.
            for command in [["exit"], ["cancel", "LATE"]] {
                let again = try await ProcessRunner.runOnThread(
                    "channelbridge", command + ["--socket", live.socket, "--timeout", "0.2"])
                #expect(again.status == 69)
                #expect(again.stdout == "")
                #expect(
                    again.stderr == "channelbridge \(command[0]): cannot reach a host at \(live.socket): "
                        + "no host is listening there (no socket file after 0.2 s; it may have finished)\n")
            }
        }
    }

    /// `exit` and `cancel` print nothing, so they take no `--json`.
    @Test func exitAndCancelTakeNoJSONOption() async throws {
        for command in [["exit"], ["cancel", "CODE"]] {
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", command + ["--json", "--socket", "/tmp/cb-nothing-here.sock"])
            #expect(outcome.status == 64)
            #expect(
                outcome.stderr == "channelbridge \(command[0]): unknown option --json; see --help for the options\n")
            let help = try await ProcessRunner.runOnThread("channelbridge", command + ["--help"])
            #expect(help.status == 0)
            #expect(!help.stdout.contains("--json"))
        }
    }

    @Test func cancelEndsTheHostWithStatus2() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            let outcome = try await live.channelbridge([
                "cancel", "USER_CANCELLED", "closed by the user", #"{"screen": 2}"#,
            ])
            #expect(outcome.status == 0)
            let exit = await live.host.waitForExit()
            live.directory.remove()
            #expect(exit.status == 2)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"USER_CANCELLED","message":"closed by the user","details":{"map":[["screen",{"int32":2}]]}},"openedURLs":[]}"#
            )
        }
    }
}
