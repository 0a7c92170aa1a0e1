import ChannelBridgeTestSupport
import Foundation
import Testing

/// `bridge prefs` through a host and directly on a store, and `bridge listen`.
@Suite struct PrefsAndListenCommandTests {
    @Test func prefsThroughTheHost() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            #expect(try live.bridge(["prefs", "set", "s", "text"]).stdout == "")
            #expect(try live.bridge(["prefs", "set", "n", "7", "--type", "int"]).status == 0)
            #expect(try live.bridge(["prefs", "set", "d", "2.5", "--type", "double"]).status == 0)
            #expect(try live.bridge(["prefs", "set", "b", "true", "--type", "bool"]).status == 0)
            #expect(try live.bridge(["prefs", "set", "l", #"["x", "y"]"#, "--type", "string-array"]).status == 0)
            #expect(try live.bridge(["prefs", "set", "y", "00ff", "--type", "bytes"]).status == 0)
            #expect(try live.bridge(["prefs", "get", "n"]).stdout == #"{"int32":7}"# + "\n")
            #expect(try live.bridge(["prefs", "get", "missing"]).stdout == "null\n")
            #expect(try live.bridge(["prefs", "all", "--app-group", "group.a"]).stdout
                    == #"{"map":[["s","text"],["n",{"int32":7}],["d",{"float64":2.5}],["b",true],["l",["x","y"]],["y",{"uint8list":"00ff"}]]}"# + "\n")
            #expect(try live.bridge(["prefs", "remove", "s"]).status == 0)
            #expect(try live.bridge(["prefs", "get", "s"]).stdout == "null\n")
            #expect(try live.bridge(["prefs", "clear"]).status == 0)
            #expect(try live.bridge(["prefs", "all"]).stdout == #"{"map":[]}"# + "\n")
            let wrong = try live.bridge(["prefs", "set", "n", "seven", "--type", "int"])
            #expect(wrong.status == 65)
            #expect(wrong.stderr == "bridge prefs: VALUE 'seven' is not an integer\n")
        }
    }

    @Test func prefsDirectlyOnAStoreSeenByAHost() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            let store = ["--data-dir", live.directory.data, "--app-group", "group.a"]
            let set = try ProcessRunner.run("bridge", ["prefs", "set", "k", "from the store"] + store)
            #expect(set.status == 0)
            #expect(try live.bridge(["prefs", "get", "k"]).stdout == "\"from the store\"\n")
            #expect(try ProcessRunner.run("bridge", ["prefs", "get", "k", "--json"] + store).stdout == "\"from the store\"\n")
            let both = try ProcessRunner.run("bridge", ["prefs", "all", "--socket", "/tmp/x.sock"] + store)
            #expect(both.status == 64)
        }
    }

    /// `listen --count 1` on the changes stream while a separate process writes through the store.
    @Test func listenPrintsEventsAndStopsAfterCount() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a"])
            defer { Task { _ = await live.stop() } }
            let done = Locked(false)
            let listening = Task.detached {
                defer { done.set(true) }
                return try live.bridge(["listen", "shared_preference_app_group/changes", #"{"appGroup": "group.a", "keys": ["watched"]}"#,
                                 "--count", "1"])
            }
            // Writes until the listener has seen one (it may subscribe after the first writes).
            let store = ["--data-dir", live.directory.data, "--app-group", "group.a"]
            while !done.value {
                _ = try ProcessRunner.run("bridge", ["prefs", "set", "other", "x"] + store)
                _ = try ProcessRunner.run("bridge", ["prefs", "set", "watched", "v"] + store)
                try await Task.sleep(for: .milliseconds(100))
            }
            let outcome = try await listening.value
            #expect(outcome.status == 0)
            #expect(outcome.stdout == #"{"map":[["key","watched"],["value","v"]]}"# + "\n")
        }
    }

    @Test func watchOnAStorePrintsChangesFromOtherProcesses() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = ["--data-dir", directory.data, "--app-group", "group.w"]
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "bridge"))
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
        #expect(String(decoding: notice, as: UTF8.self) == "bridge prefs: watching group.w in \(directory.data)\n")
        _ = try ProcessRunner.run("bridge", ["prefs", "set", "k", "1", "--type", "int"] + store)
        _ = try ProcessRunner.run("bridge", ["prefs", "remove", "k"] + store)
        var seen = ""
        while seen.split(separator: "\n").count < 2 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(seen == #"{"map":[["key","k"],["value",{"int32":1}]]}"# + "\n" + #"{"map":[["key","k"],["value",null]]}"# + "\n")
    }
}

/// `bridge listen` against a peer whose stream sends events, an error event and its end.
@Suite struct ListenEndOfStreamTests {
    @Test func errorEventsGoToStderrAndTheEndOfStreamExits0() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let peer = try ListeningTestPeer(socket: directory.socket)
        defer { peer.stop() }
        let outcome = try ProcessRunner.run("bridge", ["listen", "peer/events", #"{"count": 3, "errorAt": 1, "end": true}"#,
                                                       "--socket", directory.socket])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "{\"int32\":0}\n{\"int32\":1}\n{\"int32\":2}\n")
        #expect(outcome.stderr == "event error TICK_ERROR: error before 1 details: {\"int32\":1}\n")
    }
}
