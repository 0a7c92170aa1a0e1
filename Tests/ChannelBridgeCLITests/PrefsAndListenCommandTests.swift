import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge prefs` through a host and directly on a store, and `channelbridge listen`.
@Suite struct PrefsAndListenCommandTests {
    @Test func prefsThroughTheHost() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            #expect(try await live.channelbridge(["prefs", "set", "s", "text"]).stdout == "")
            #expect(try await live.channelbridge(["prefs", "set", "n", "7", "--type", "int"]).status == 0)
            #expect(try await live.channelbridge(["prefs", "set", "d", "2.5", "--type", "double"]).status == 0)
            #expect(try await live.channelbridge(["prefs", "set", "b", "true", "--type", "bool"]).status == 0)
            #expect(
                try await live.channelbridge(["prefs", "set", "l", #"["x", "y"]"#, "--type", "string-array"]).status
                    == 0)
            #expect(try await live.channelbridge(["prefs", "set", "y", "00ff", "--type", "bytes"]).status == 0)
            #expect(try await live.channelbridge(["prefs", "get", "n"]).stdout == #"{"int32":7}"# + "\n")
            #expect(try await live.channelbridge(["prefs", "get", "missing"]).stdout == "null\n")
            #expect(
                try await live.channelbridge(["prefs", "all", "--app-group", "group.a"]).stdout
                    == #"{"map":[["s","text"],["n",{"int32":7}],["d",{"float64":2.5}],["b",true],["l",["x","y"]],["y",{"uint8list":"00ff"}]]}"#
                    + "\n")
            #expect(try await live.channelbridge(["prefs", "remove", "s"]).status == 0)
            #expect(try await live.channelbridge(["prefs", "get", "s"]).stdout == "null\n")
            #expect(try await live.channelbridge(["prefs", "clear"]).status == 0)
            #expect(try await live.channelbridge(["prefs", "all"]).stdout == #"{"map":[]}"# + "\n")
            let wrong = try await live.channelbridge(["prefs", "set", "n", "seven", "--type", "int"])
            #expect(wrong.status == 65)
            #expect(wrong.stderr == "channelbridge prefs: VALUE 'seven' is not an integer\n")
            let json = try await live.channelbridge(["prefs", "set", "n", "7", "--json"])
            #expect(json.status == 64)
            #expect(
                json.stderr == "channelbridge prefs: --json goes with get, take, all and watch (set prints nothing)\n"
                    + "Run 'channelbridge prefs --help' for usage.\n")
        }
    }

    /// A whole number typed for a double is stored as a double, through a host and on a store.
    @Test func aWholeNumberSetAsDoubleIsStoredAsADouble() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let set = try await live.channelbridge(["prefs", "set", "ratio", "3", "--type", "double"])
            #expect(set.status == 0)
            #expect(set.stdout == "")
            #expect(set.stderr == "")
            #expect(try await live.channelbridge(["prefs", "get", "ratio"]).stdout == #"{"float64":3.0}"# + "\n")
            let store = ["--data-dir", live.directory.data]
            #expect(
                try await ProcessRunner.runOnThread(
                    "channelbridge", ["prefs", "set", "other", "-2", "--type", "double"] + store
                ).status == 0)
            #expect(
                try await ProcessRunner.runOnThread("channelbridge", ["prefs", "get", "other"] + store).stdout
                    == #"{"float64":-2.0}"# + "\n")
            #expect(
                try await live.channelbridge(["call", "shared_preference_app_group", "getDouble", #"{"key": "other"}"#])
                    .stdout
                    == #"{"float64":-2.0}"# + "\n")
        }
    }

    /// `prefs watch` through a host with no `--app-group` watches the host's default group, as
    /// `get` and `set` use it (the help's own example).
    @Test func watchThroughAHostUsesItsDefaultGroup() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let watcher = try LineDrivenChild(
                ProcessRunner.path(of: "channelbridge"),
                ["prefs", "watch", "ShareKey", "--socket", live.socket])
            defer { watcher.process.terminate() }
            let store = ["--data-dir", live.directory.data]  // group.local, the host's default
            let seen = try await writeUntilSeen(by: watcher) { round in
                try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", "ShareKey", "v\(round)"] + store)
            }
            #expect(seen.wholeMatch(of: /\{"map":\[\["key","ShareKey"\],\["value","v\d+"\]\]\}/) != nil, "\(seen)")
        }
    }

    @Test func prefsDirectlyOnAStoreSeenByAHost() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            let store = ["--data-dir", live.directory.data, "--app-group", "group.a"]
            let set = try await ProcessRunner.runOnThread(
                "channelbridge", ["prefs", "set", "k", "from the store"] + store)
            #expect(set.status == 0)
            #expect(try await live.channelbridge(["prefs", "get", "k"]).stdout == "\"from the store\"\n")
            #expect(
                try await ProcessRunner.runOnThread("channelbridge", ["prefs", "get", "k", "--json"] + store).stdout
                    == "\"from the store\"\n")
            let both = try await ProcessRunner.runOnThread(
                "channelbridge", ["prefs", "all", "--socket", "/tmp/x.sock"] + store)
            #expect(both.status == 64)
        }
    }

    /// `prefs append` and `prefs take`, through the host and on the store directly, on one list.
    @Test func appendAndTakeThroughTheHostAndOnTheStore() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            let store = ["--data-dir", live.directory.data, "--app-group", "group.a"]
            #expect(try await live.channelbridge(["prefs", "append", "items", "one", "two"]).stdout == "")
            #expect(
                try await ProcessRunner.runOnThread(
                    "channelbridge", ["prefs", "append", "items", "3", "--type", "int"] + store
                ).status == 0)
            #expect(
                try await live.channelbridge(["prefs", "take", "items"]).stdout == #"["one","two",{"int32":3}]"# + "\n")
            #expect(try await live.channelbridge(["prefs", "take", "items"]).stdout == "null\n")
            #expect(try await live.channelbridge(["prefs", "append", "items", "again"]).status == 0)
            #expect(
                try await ProcessRunner.runOnThread("channelbridge", ["prefs", "take", "items"] + store).stdout
                    == #"["again"]"# + "\n")
            #expect(try await live.channelbridge(["prefs", "get", "items"]).stdout == "null\n")

            #expect(try await live.channelbridge(["prefs", "set", "name", "text"]).status == 0)
            let throughHost = try await live.channelbridge(["prefs", "append", "name", "x"])
            #expect(throughHost.status == 1)
            #expect(
                throughHost.stderr.hasPrefix(
                    "channelbridge prefs: remote error WRONG_TYPE: appendToList: the value of key 'name' is String, not List\n"
                ))
            let onStore = try await ProcessRunner.runOnThread(
                "channelbridge", ["prefs", "append", "name", "x"] + store)
            #expect(onStore.status == 1)
            #expect(
                onStore.stderr
                    == "channelbridge prefs: store error wrongType: cannot append to key 'name': it holds String, not a List\n"
            )
            let noValue = try await live.channelbridge(["prefs", "append", "items"])
            #expect(noValue.status == 64)
            #expect(noValue.stderr.hasPrefix("channelbridge prefs: prefs append takes KEY and at least one VALUE\n"))
        }
    }

    /// `listen --count 1` on the changes stream while a separate process writes through the store.
    @Test func listenPrintsEventsAndStopsAfterCount() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            let listener = try LineDrivenChild(
                ProcessRunner.path(of: "channelbridge"),
                [
                    "listen", "shared_preference_app_group/changes", #"{"appGroup": "group.a", "keys": ["watched"]}"#,
                    "--count", "1", "--socket", live.socket,
                ])
            let store = ["--data-dir", live.directory.data, "--app-group", "group.a"]
            let seen = try await writeUntilSeen(by: listener) { _ in
                _ = try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", "other", "x"] + store)
                return try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", "watched", "v"] + store)
            }
            #expect(seen == #"{"map":[["key","watched"],["value","v"]]}"#)
            #expect(await listener.status() == 0)
            #expect(await LineDrivenChild.rest(of: listener.stdout) == [])
        }
    }

    @Test func watchOnAStorePrintsChangesFromOtherProcesses() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = ["--data-dir", directory.data, "--app-group", "group.w"]
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge"))
        watcher.arguments = ["prefs", "watch", "k"] + store
        let output = try CloseOnExecPipe(), errors = try CloseOnExecPipe()
        watcher.standardOutput = output.fileHandleForWriting
        watcher.standardError = errors.fileHandleForWriting
        try ProcessRunner.start(watcher)
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        defer { if watcher.isRunning { watcher.terminate() } }
        // The watcher says on stderr when it is watching; every write after that is reported.
        let notice = errors.fileHandleForReading.availableData
        #expect(
            String(decoding: notice, as: UTF8.self) == "channelbridge prefs: watching group.w in \(directory.data)\n")
        _ = try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", "k", "1", "--type", "int"] + store)
        _ = try await ProcessRunner.runOnThread("channelbridge", ["prefs", "remove", "k"] + store)
        var seen = ""
        while seen.split(separator: "\n").count < 2 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(
            seen == #"{"map":[["key","k"],["value",{"int32":1}]]}"# + "\n" + #"{"map":[["key","k"],["value",null]]}"#
                + "\n")
    }
}

/// `channelbridge listen` against a peer whose stream sends events, an error event and its end.
@Suite struct ListenEndOfStreamTests {
    @Test func errorEventsGoToStderrAndTheEndOfStreamExits0() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let peer = try ListeningTestPeer(socket: directory.socket)
        defer { peer.stop() }
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge",
            [
                "listen", "peer/events", #"{"count": 3, "errorAt": 1, "end": true}"#,
                "--socket", directory.socket,
            ])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "{\"int32\":0}\n{\"int32\":1}\n{\"int32\":2}\n")
        #expect(outcome.stderr == "event error TICK_ERROR: error before 1 details: {\"int32\":1}\n")
    }
}

/// Writes with `write` until `watcher` prints its first line, and returns that line. The watcher
/// may subscribe after the first writes, and nothing tells from outside when it has: each round
/// starts a process, so the rounds are paced by the writes themselves, and they stop at the line.
func writeUntilSeen(
    by watcher: LineDrivenChild,
    _ write: @escaping @Sendable (Int) async throws -> ProcessRunner.Outcome
) async throws -> String {
    let writer = Task {
        var round = 0
        while !Task.isCancelled {
            let outcome = try await write(round)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            round += 1
        }
    }
    let line = await watcher.stdout.next()
    // The round in progress finishes before the caller removes the directory it writes to.
    writer.cancel()
    _ = await writer.result
    guard let line else {
        let errors = await LineDrivenChild.rest(of: watcher.stderr)
        Issue.record("the watcher ended before printing a line: \(errors)")
        return ""
    }
    return line
}
