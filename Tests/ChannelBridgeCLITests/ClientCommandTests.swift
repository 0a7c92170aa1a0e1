import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge call|send|items|exit|cancel` against a real `extension-host` child: exact stdout,
/// stderr and exit statuses.
@Suite struct ClientCommandTests {
    @Test func callPrintsTheResultAsCanonicalTVN() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--text", "hi", "--url", "https://e.x/a"])
            defer { Task { _ = await live.stop() } }
            let items = try live.channelbridge(["call", "channelbridge/extension", "getInputItems"])
            #expect(items.stdout == #"[{"map":[["attachments",[{"map":[["typeIdentifier","public.plain-text"],["text","hi"]]},{"map":[["typeIdentifier","public.url"],["url","https://e.x/a"]]}]]]}]"# + "\n")
            #expect(items.status == 0)
            #expect(items.stderr == "")
            let json = try live.channelbridge(["items", "--json"])
            #expect(json.stdout == #"[{"attachments":[{"typeIdentifier":"public.plain-text","text":"hi"},{"typeIdentifier":"public.url","url":"https://e.x/a"}]}]"# + "\n")
            let set = try live.channelbridge(["call", "shared_preference_app_group", "setInt", #"{"key": "n", "value": 5000000000}"#])
            #expect(set.stdout == "null\n")
            let get = try live.channelbridge(["call", "shared_preference_app_group", "get", #"{"key": "n"}"#])
            #expect(get.stdout == #"{"int64":"5000000000"}"# + "\n")
        }
    }

    @Test func aRemoteErrorExits1WithCodeMessageAndDetails() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let outcome = try live.channelbridge(["call", "shared_preference_app_group", "setAppGroup", #"{"appGroup": "group.other"}"#])
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
            let outcome = try live.channelbridge(["call", "channelbridge/extension", "teleport"])
            #expect(outcome.status == 1)
            #expect(outcome.stderr == "channelbridge call: not implemented: No implementation found for method teleport on channel channelbridge/extension\n")
        }
    }

    @Test func badTVNExits65AndUsageExits64() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let bad = try live.channelbridge(["call", "shared_preference_app_group", "getString", "{key"])
            #expect(bad.status == 65)
            #expect(bad.stderr == "channelbridge call: ARGS is not valid typed value notation: not JSON: expected a string key (at byte 1)\n")
            let usage = try live.channelbridge(["call", "only-a-channel"])
            #expect(usage.status == 64)
            #expect(usage.stderr.hasPrefix("channelbridge call: needs CHANNEL and METHOD\n"))
            let codec = try live.channelbridge(["call", "a", "b", "--codec", "xml"])
            #expect(codec.status == 64)
        }
    }

    @Test func anUnreachableHostExits69() throws {
        let outcome = try ProcessRunner.run("channelbridge", ["items", "--socket", "/tmp/cb-nothing-here.sock"])
        #expect(outcome.status == 69)
        #expect(outcome.stderr == "channelbridge items: cannot reach a host at /tmp/cb-nothing-here.sock: notFound: no socket file: no host has started there (/tmp/cb-nothing-here.sock)\n")
    }

    @Test func sendEchoesThroughEveryCodec() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--echo"])
            defer { Task { _ = await live.stop() } }
            #expect(try live.channelbridge(["send", "channelbridge/echo", "00ff10", "--codec", "binary"]).stdout == "00ff10\n")
            #expect(try live.channelbridge(["send", "channelbridge/echo", "héllo", "--codec", "string"]).stdout == "héllo\n")
            #expect(try live.channelbridge(["send", "channelbridge/echo", #"{"a": [1, 2.5]}"#]).stdout
                    == #"{"map":[["a",[{"int32":1},{"float64":2.5}]]]}"# + "\n")
            #expect(try live.channelbridge(["send", "channelbridge/echo", #"{"a": [1, 2.5]}"#, "--codec", "json"]).stdout
                    == #"{"map":[["a",[{"int32":1},{"float64":2.5}]]]}"# + "\n")
            #expect(try live.channelbridge(["send", "no/handler", "1"]).stdout == "null\n")
            let bad = try live.channelbridge(["send", "channelbridge/echo", "0g", "--codec", "binary"])
            #expect(bad.status == 65)
        }
    }

    @Test func exitCompletesTheRequest() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            let outcome = try live.channelbridge(["exit", #"["done"]"#])
            #expect(outcome.status == 0)
            #expect(outcome.stdout == "")
            let exit = await live.host.waitForExit()
            live.directory.remove()
            #expect(exit.status == 0)
            #expect(exit.stdoutLines.last == #"{"outcome":"completed","returnedItems":["done"],"error":null,"openedURLs":[]}"#)
        }
    }

    @Test func cancelEndsTheHostWithStatus2() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            let outcome = try live.channelbridge(["cancel", "USER_CANCELLED", "closed by the user", #"{"screen": 2}"#])
            #expect(outcome.status == 0)
            let exit = await live.host.waitForExit()
            live.directory.remove()
            #expect(exit.status == 2)
            #expect(exit.stdoutLines.last == #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"USER_CANCELLED","message":"closed by the user","details":{"map":[["screen",{"int32":2}]]}},"openedURLs":[]}"#)
        }
    }
}
