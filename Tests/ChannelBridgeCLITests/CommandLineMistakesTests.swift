import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// What a new user gets wrong on a first try, each answered with one line saying what to do.
@Suite struct CommandLineMistakesTests {
    func expectUsage(
        _ arguments: [String], _ stderr: String, status: Int32 = 64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let outcome = try await ProcessRunner.runOnThread("channelbridge", arguments)
        #expect(outcome.status == status, "\(arguments)", sourceLocation: sourceLocation)
        #expect(outcome.stdout == "", "\(arguments)", sourceLocation: sourceLocation)
        #expect(outcome.stderr == stderr + "\n", "\(arguments)", sourceLocation: sourceLocation)
    }

    @Test func aMistypedCommandOrOptionGetsASuggestion() async throws {
        try await expectUsage(["cal"], "channelbridge: unknown command 'cal'; did you mean 'call'?")
        try await expectUsage(["sesion"], "channelbridge: unknown command 'sesion'; did you mean 'session'?")
        try await expectUsage(
            ["frobnicate"], "channelbridge: unknown command 'frobnicate'; run 'channelbridge --help' for the commands")
        try await expectUsage(
            ["call", "a", "b", "--sokcet", "x.sock"],
            "channelbridge call: unknown option --sokcet; did you mean --socket?")
        try await expectUsage(
            ["items", "--frobnicate"], "channelbridge items: unknown option --frobnicate; see --help for the options")
        try await expectUsage(
            ["--sockt", "x.sock", "items"], "channelbridge: unknown option --sockt; did you mean --socket?")
        try await expectUsage(
            ["--socket", "x.sock"],
            "channelbridge: --socket needs a command after it; run 'channelbridge --help' for the commands")
        try await expectUsage(
            ["prefs", "set", "k", "v", "--type", "itn"],
            "channelbridge prefs: unknown --type 'itn'; did you mean 'int'?")
    }

    /// `bench` is no command of `channelbridge`: it says where the benchmarks are, whatever follows it.
    @Test func benchSaysWhereTheBenchmarksAre() async throws {
        let moved = """
            channelbridge: 'bench' is not a command; the benchmarks are channelbridge-bench, in the Benchmarks/ package:
              swift run -c release --package-path Benchmarks channelbridge-bench [scenario ...] [--json]
            Connection times to a running host: channelbridge stress connect --socket PATH
            """
        try await expectUsage(["bench"], moved)
        try await expectUsage(["bench", "rtt", "--json"], moved)
        let help = try await ProcessRunner.runOnThread("channelbridge", ["--help"])
        #expect(help.status == 0 && !help.stdout.contains("bench"), "\(help.stdout)")
    }

    /// `--socket`, `--timeout` and `--json` may come before the command.
    @Test func clientOptionsAreAcceptedBeforeTheCommand() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--text", "hi"])
            defer { Task { _ = await live.stop() } }
            let items = try await ProcessRunner.runOnThread(
                "channelbridge", ["--socket", live.socket, "--json", "--timeout=5", "items"])
            #expect(items.stderr == "")
            #expect(items.status == 0)
            #expect(items.stdout == #"[{"attachments":[{"typeIdentifier":"public.plain-text","text":"hi"}]}]"# + "\n")
        }
    }

    @Test func pigeonAdaptOnAMissingFileSaysSo() async throws {
        try await expectUsage(
            ["pigeon", "adapt", "nofile.swift"], "channelbridge pigeon: nofile.swift: no such file", status: 66)
    }

    /// With --data-dir, reading a group nothing was ever written to is a mistyped name, not null.
    @Test func prefsOnAnUnknownAppGroupOfAStoreIsAnError() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = ["--data-dir", directory.data]
        #expect(try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", "k", "v"] + store).status == 0)
        for verb in [["get", "k"], ["take", "k"], ["all"]] {
            try await expectUsage(
                ["prefs"] + verb + ["--app-group", "group.locl"] + store,
                "channelbridge prefs: no app group 'group.locl' in \(directory.data) (there: group.local); "
                    + "check --app-group and --data-dir", status: 1)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.group("group.locl")))
        try await expectUsage(
            ["prefs", "get", "k", "--data-dir", directory.path + "/elsewhere"],
            "channelbridge prefs: no app group 'group.local' in \(directory.path)/elsewhere (there is none); "
                + "check --app-group and --data-dir", status: 1)
        #expect(
            try await ProcessRunner.runOnThread("channelbridge", ["prefs", "get", "k"] + store).stdout == "\"v\"\n")
    }

    /// `prefs append --type map|list|json` takes any typed value; a setter takes none of them.
    @Test func prefsAppendTakesMapsListsAndAnyValue() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = ["--data-dir", directory.data]
        func run(_ arguments: [String]) async throws -> ProcessRunner.Outcome {
            try await ProcessRunner.runOnThread("channelbridge", ["prefs"] + arguments + store)
        }
        #expect(
            try await run(["append", "itemList", #"{"text": "a note", "files": []}"#, "--type", "map"]).status == 0)
        #expect(try await run(["append", "itemList", "[1, 2.5]", "--type", "list"]).status == 0)
        #expect(try await run(["append", "itemList", #""plain""#, "7", "--type", "json"]).status == 0)
        let taken = try await run(["take", "itemList"])
        #expect(
            taken.stdout
                == #"[{"map":[["text","a note"],["files",[]]]},[{"int32":1},{"float64":2.5}],"plain",{"int32":7}]"#
                + "\n")
        try await expectUsage(
            ["prefs", "append", "itemList", "[1]", "--type", "map"] + store,
            "channelbridge prefs: VALUE '[1]' is not a map ({...})", status: 65)
        try await expectUsage(
            ["prefs", "append", "itemList", "{", "--type", "json"] + store,
            "channelbridge prefs: VALUE '{' is not valid typed value notation: not JSON: expected a string key (at byte 1)",
            status: 65)
        try await expectUsage(
            ["prefs", "set", "k", "{}", "--type", "map"] + store,
            "channelbridge prefs: --type map goes with append; set takes string, int, double, bool, string-array or bytes"
        )
    }

    /// The host creates the default socket's directory, never one named with --socket.
    @Test func aHostDoesNotCreateTheDirectoryOfAGivenSocket() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socket = directory.path + "/missing/x.sock"
        let outcome = try await ProcessRunner.runOnThread(
            "extension-host", ["--socket", socket, "--data-dir", directory.data])
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr
                == "extension-host: cannot listen on \(socket): there is no directory \(directory.path)/missing; "
                + "create it first, or choose a socket path in an existing directory\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/missing"))
    }
}
