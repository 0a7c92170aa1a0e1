import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// The `Flutter` examples, run as a user would run them.
@Suite struct FlutterExamplesTests {
    /// Seed 000's share extension: the iOS-style plugins served by a host built with the
    /// `Flutter` module, called with the `channelbridge` CLI, and the seed's `exit` ending it.
    @Test func flutterStylePluginIsServedByAHostAndCalledFromTheCLI() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let host = try HostProcess(
            ["--socket", directory.socket, "--data-dir", directory.data],
            product: "flutter-style-plugin-example")
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        func call(_ arguments: String...) async throws -> ProcessRunner.Outcome {
            try await ProcessRunner.runOnThread("channelbridge", ["call"] + arguments + ["--socket", directory.socket])
        }

        // Reflection lists the Flutter-style plugins' channels next to the host's.
        let list = try await ProcessRunner.runOnThread("channelbridge", ["list", "--socket", directory.socket])
        #expect(list.status == 0)
        #expect(
            list.stdout.split(separator: "\n").filter { !$0.hasPrefix("  ") }.joined(separator: "\n") == """
                channelbridge/extension (method channel, standard codec): The extension request: input items, exit, cancel, openURL, app group containers
                channelbridge/reflection (method channel, standard codec): The channels this session serves (channelbridge list)
                example/notes (method channel, standard codec)
                example/notes/changes (event channel, standard codec)
                platform_version (method channel, standard codec)
                share_extension (method channel, standard codec)
                shared_preference_app_group (method channel, standard codec): An app group's preferences, shared with every process of the store
                shared_preference_app_group/changes (event channel, standard codec): Every write to an app group: listen {"appGroup"?, "keys"?}; events {"key", "value"}
                """)

        // The plugin registered through the seed's registrant; each CLI call is a session of its
        // own, with an engine (and a NotesPlugin) of its own.
        let added = try await call("example/notes", "add", #"{"text": "first"}"#)
        #expect(added.status == 0 && added.stdout == "{\"int64\":\"1\"}\n")
        let all = try await call("example/notes", "all")
        #expect(all.stdout == "[]\n")
        let shouted = try await call("example/notes", "shout", #"{"text": "quiet"}"#)
        #expect(shouted.stdout == "\"QUIET\"\n")
        let refused = try await call("example/notes", "add")
        #expect(refused.status == 1)
        #expect(refused.stderr == "channelbridge call: remote error BAD_ARGS: add needs {\"text\": String}\n")
        let unknown = try await call("example/notes", "delete")
        #expect(unknown.status == 1)
        // A closure handler declares no methods, so a missing one keeps the not-implemented line.
        #expect(
            unknown.stderr
                == "channelbridge call: not implemented: No implementation found for method delete on channel example/notes\n"
        )

        // The plugin registered by name, next to the built-in native one.
        let version = try await call("platform_version", "getPlatformVersion")
        #expect(version.status == 0 && version.stdout.hasPrefix("\"Linux "))
        let preferences = try await call("shared_preference_app_group", "get", #"{"key": "ShareKey"}"#)
        #expect(preferences.status == 0 && preferences.stdout == "null\n")

        // The seed's `exit` completes the request without answering, as on iOS.
        let exit = try await call("share_extension", "exit")
        #expect(exit.status == 1)
        #expect(exit.stderr.contains("the handler on channel 'share_extension' released its reply without answering"))
        let ended = await host.waitForExit()
        #expect(ended.status == 0)
        #expect(ended.stdoutLines.last == #"{"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[]}"#)
    }
}

extension FlutterExamplesTests {
    /// Seed 000's storage code in a host: what was shared is saved as JSON in the app group's
    /// `UserDefaults`, which is the group's store (`channelbridge prefs --data-dir` reads it, as
    /// the containing app would), and a shared file is copied into the group's container.
    @Test func theSeedsUserDefaultsAreTheAppGroupsStore() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let group = "group.info.shiosyakeyakini.miria"
        let shared = directory.path + "/photo.txt"
        try Data("pixels".utf8).write(to: URL(fileURLWithPath: shared))
        let host = try HostProcess(
            [
                "--socket", directory.socket, "--data-dir", directory.data, "--app-group", group,
                "--bundle-identifier", "info.shiosyakeyakini.miria.ShareExtension", "--title", "A page",
                "--text", "hello", "--url", "https://example.com/a", "--file", shared,
            ],
            product: "flutter-style-plugin-example")
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        // A session: the extension's view loads and saves what was shared.
        let list = try await ProcessRunner.runOnThread("channelbridge", ["list", "--socket", directory.socket])
        #expect(list.status == 0)

        let container = directory.data + "/app-groups/\(group)/container"
        let saved = try await ProcessRunner.runOnThread(
            "channelbridge", ["prefs", "get", "ShareKey", "--app-group", group, "--data-dir", directory.data])
        #expect(saved.status == 0)
        let json = try JSONSerialization.jsonObject(
            with: Data(
                (try JSONSerialization.jsonObject(with: Data(saved.stdout.utf8), options: .fragmentsAllowed) as? String
                    ?? "").utf8))
        let expected: NSDictionary = [
            "text": ["hello", "[A page](https://example.com/a)"],
            "files": [["path": URL(fileURLWithPath: container + "/photo.txt").absoluteString, "type": 2]],
        ]
        #expect((json as? NSDictionary) == expected, "\(saved.stdout)")
        #expect(try String(contentsOfFile: container + "/photo.txt", encoding: .utf8) == "pixels")

        let exit = try await ProcessRunner.runOnThread(
            "channelbridge", ["call", "share_extension", "exit", "--socket", directory.socket])
        #expect(exit.status == 1)
        #expect(await host.waitForExit().status == 0)
    }

    /// Pigeon 28.0.0's Swift output for the example API, served over a socket and driven by a
    /// client that builds the Dart side's bytes with ChannelBridge's codec.
    @Test func pigeonAPIAnswersEveryKindOfMethodAndCallsTheFlutterAPI() async throws {
        let tmp = try TestDirectory()
        defer { tmp.remove() }
        let outcome = try await ProcessRunner.runOnThread(
            "pigeon-api-example", ["demo"],
            environment: ExamplesTests.environment(tmp: tmp.path))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stdout == """
                getHostLanguage: "Swift"
                add: {"int64":"42"}
                add: error OVERFLOW: 9223372036854775807 + 1 does not fit in 64 bits
                summarize: ShareItem(title: HOLIDAY PHOTOS, note: 2 tags, priority: 2, attachment: /tmp/beach.jpg (52311 bytes), tags: ["beach", "sea"])
                save: error EMPTY_TITLE: an item needs a title
                save: {"int64":"1"}
                host: itemSaved answered: saved Holiday photos with 2 tags
                clear: null
                rename: channel-error (no handler answered)

                """)
        #expect(ExamplesTests.contents(tmp.path) == [])  // its scratch directory, socket and lock file are gone
    }

    /// A `FlutterEngine` per session on a bare `SocketListener`, with `engine.serveReflection()`:
    /// `channelbridge list` against the example's serve mode, a real child process, lists the
    /// Pigeon channels the engine set up (message channels, without methods).
    @Test func pigeonAPIServeModeIsListedByChannelbridgeList() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let host = try HostProcess(["serve", directory.socket], product: "pigeon-api-example")
        var stopped = false
        defer { if !stopped { host.send(signal: SIGKILL) } }
        try await withHangGuard {
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            let api = "dev.flutter.pigeon.pigeon_api_example.ShareHostApi."
            let list = try await ProcessRunner.runOnThread("channelbridge", ["list", "--socket", directory.socket])
            #expect(list.status == 0)
            #expect(list.stderr == "")
            #expect(
                list.stdout == """
                    channelbridge/reflection (method channel, standard codec): The channels this session serves (channelbridge list)
                      methods: listChannels
                    \(api)add (message channel, standard codec)
                    \(api)clear (message channel, standard codec)
                    \(api)getHostLanguage (message channel, standard codec)
                    \(api)save (message channel, standard codec)
                    \(api)summarize (message channel, standard codec)

                    """)
            // A mistyped channel gets the nearest name from the same reflection.
            let send = try await ProcessRunner.runOnThread(
                "channelbridge", ["send", api + "sav", "[]", "--socket", directory.socket])
            #expect(send.status == 1)
            #expect(
                send.stderr == "channelbridge send: no channel '\(api)sav' on this host; did you mean '\(api)save'?\n")
        }
        host.send(signal: SIGTERM)
        stopped = true
        let exit = await host.waitForExit()
        #expect(exit.status == 0)
    }
}
