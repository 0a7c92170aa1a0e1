import ChannelBridgeTestSupport
import Foundation
import Testing

/// Every program under Examples/ runs, as a user would run it (README.md lists the same commands).
@Suite struct ExamplesTests {
    /// The environment with `TMPDIR` in a test directory, so that what an example leaves in it shows.
    static func environment(tmp: String, _ changes: [String: String?] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        for (name, value) in changes { environment[name] = value }
        return environment
    }

    static func contents(_ directory: String) -> [String] {
        (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? ["(cannot list \(directory))"]
    }

    /// Entries of /tmp named `prefix…`: an example that ignored TMPDIR would leave them there.
    static func inSystemTmp(_ prefix: String) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter { $0.hasPrefix(prefix) })
    }

    @Test func eventStreamPrintsTheCountdownAndTheEndAndLeavesNothingBehind() async throws {
        let tmp = try TestDirectory()
        defer { tmp.remove() }
        let before = Self.inSystemTmp("cb-events-")
        let outcome = try await ProcessRunner.runOnThread(
            "event-stream-example", ["3"], environment: Self.environment(tmp: tmp.path))
        #expect(outcome.status == 0)
        // Its client reads the session's reflection first: the catalog the example serves by hand.
        #expect(
            outcome.stdout == """
                listed: channelbridge/reflection (method channel): The channels this session serves (channelbridge list)
                listed: example/countdown (event channel): listen {"from"?: int}; events from, …, 1, then "liftoff"
                {"int32":3}
                {"int32":2}
                {"int32":1}
                "liftoff"
                end of stream

                """)
        #expect(outcome.stderr == "")
        #expect(Self.contents(tmp.path) == [])  // no socket, no lock file, no directory
        #expect(Self.inSystemTmp("cb-events-").subtracting(before).isEmpty)
    }

    @Test func customPluginIsRegisteredByNameAndCalledOverASocketAndLeavesNothingBehind() async throws {
        let tmp = try TestDirectory()
        defer { tmp.remove() }
        let before = Self.inSystemTmp("cb-greeter-")
        let outcome = try await ProcessRunner.runOnThread(
            "custom-plugin-example", ["Ada"], environment: Self.environment(tmp: tmp.path))
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                Hello, Ada!
                greetings so far: 1
                notImplemented on channel 'example/greeter' (method 'wave'): No implementation found for method wave on channel example/greeter
                listed: channelbridge/reflection (method channel): listChannels
                listed: example/greeter (method channel): greet, greetings

                """)
        #expect(outcome.stderr == "")
        #expect(Self.contents(tmp.path) == [])
        #expect(Self.inSystemTmp("cb-greeter-").subtracting(before).isEmpty)
    }

    /// The containing app takes the CLI's options with the CLI's and the host's defaults:
    /// `--app-group` (group.local) and `--data-dir` ($XDG_DATA_HOME/channelbridge, else
    /// ~/.local/share/channelbridge).
    @Test func containingAppTakesTheCLIsOptionsAndDefaults() async throws {
        let home = try TestDirectory()
        defer { home.remove() }
        let plain = Self.environment(tmp: home.path, ["HOME": home.path, "XDG_DATA_HOME": nil])
        #expect(
            try await ProcessRunner.runOnThread("containing-app-example", ["share", "one"], environment: plain).status
                == 0)
        #expect(
            FileManager.default.fileExists(
                atPath: home.path + "/.local/share/channelbridge/app-groups/group.local/preferences.json"))
        let other = ["--app-group", "group.other", "--data-dir", home.data]
        #expect(
            try await ProcessRunner.runOnThread("containing-app-example", ["share", "two"] + other, environment: plain)
                .status == 0)
        #expect(
            try await ProcessRunner.runOnThread("containing-app-example", ["import"] + other, environment: plain).stdout
                == "two\n")
        #expect(
            try await ProcessRunner.runOnThread("containing-app-example", ["import"], environment: plain).stdout
                == "one\n")
        let usage = "usage: containing-app-example share ITEM|import|shared-text [--data-dir DIR] [--app-group G]\n"
        let old = try await ProcessRunner.runOnThread(
            "containing-app-example", ["import", "--group", "g"], environment: plain)
        #expect(old.status == 64)
        #expect(old.stderr == "unknown option --group\n" + usage)
        let bad = try await ProcessRunner.runOnThread(
            "containing-app-example", ["import", "--app-group", "a/b"], environment: plain)
        #expect(bad.status == 64)
        #expect(bad.stderr == "containing-app-example: invalid app group name \"a/b\": it contains '/'\n")
    }

    /// Seed 001: the action extension saves its text in the app group's UserDefaults (here the
    /// CLI writes the group's store, as the extension's host does); the containing app's
    /// `SharedData` reads it through Foundation's API, appends it and removes it.
    @Test func seedOnesContainingAppReadsTheExtensionsTextThroughUserDefaults() async throws {
        let home = try TestDirectory()
        defer { home.remove() }
        let group = ["--app-group", "group.com.example.helloExtension", "--data-dir", home.data]
        let saved = try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", "text", "olleh"] + group)
        #expect(saved.status == 0)
        let read = try await ProcessRunner.runOnThread(
            "containing-app-example", ["shared-text", "--data-dir", home.data])
        #expect(read.status == 0)
        #expect(read.stdout == "Apple\nBanana\nOrange\nolleh\n")
        let removed = try await ProcessRunner.runOnThread("channelbridge", ["prefs", "get", "text"] + group)
        #expect(removed.stdout == "null\n")
        let again = try await ProcessRunner.runOnThread(
            "containing-app-example", ["shared-text", "--data-dir", home.data])
        #expect(again.stdout == "Apple\nBanana\nOrange\n")
    }

    /// Three extension processes share items while the containing app imports in a loop: every
    /// item is imported exactly once, none lost between the app's read and its removal.
    @Test func containingAppImportsEveryItemExactlyOnce() async throws {
        let testDirectory = try TestDirectory()
        defer { testDirectory.remove() }
        let directory = testDirectory.data
        let finished = Locked(false)
        let sharing = Task.detached {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sharer in 0..<3 {
                    group.addTask {
                        for item in 0..<20 {
                            let outcome = try await ProcessRunner.runOnThread(
                                "containing-app-example", ["share", "s\(sharer)-\(item)", "--data-dir", directory])
                            #expect(outcome.status == 0, "\(outcome.stderr)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            finished.set(true)
        }
        var imported: [String] = []
        func importOnce() async throws {
            let outcome = try await ProcessRunner.runOnThread(
                "containing-app-example", ["import", "--data-dir", directory])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            imported += outcome.stdout.split(separator: "\n").map(String.init)
        }
        while !finished.value { try await importOnce() }
        try await importOnce()  // picks up whatever was shared after the last import in the loop
        try await sharing.value
        #expect(imported.count == 60)
        let expected = Set((0..<3).flatMap { s in (0..<20).map { "s\(s)-\($0)" } })
        #expect(Set(imported) == expected)
    }
}
