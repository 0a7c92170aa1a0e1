import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// `channelbridge session`: several calls on one connection against a real `extension-host` child,
/// with exact stdout, stderr and exit status.
@Suite struct SessionCommandTests {
    /// The host is entitled to two groups, so no call works before `setAppGroup`: each call after
    /// it only works because the session is one.
    @Test func callsShareOneSessionAndAnErrorInTheMiddleDoesNotStopTheRest() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a", "--app-group", "group.b"])
            defer { Task { _ = await live.stop() } }
            let script = """
                shared_preference_app_group setAppGroup {"appGroup": "group.b"}
                shared_preference_app_group setInt {"key": "launches", "value": 3}
                shared_preference_app_group getString {"key": "launches"}
                channelbridge/extension teleport
                shared_preferences_app_group getInt {"key": "launches"}

                # a comment, and an empty line above: skipped
                shared_preference_app_group getInt '{"key": "launches"}'
                only-a-channel
                shared_preference_app_group getInt {"key":
                getInt {"key": "launches"}
                  shared_preference_app_group   getAll
                quit
                shared_preference_app_group getAll

                """
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["session", "--socket", live.socket], stdin: script)
            #expect(
                outcome.stdout == """
                    null
                    null
                    error: remote error WRONG_TYPE: getString: the value of key 'launches' is int (int32), not String details: {"map":[["key","launches"],["storedType","int (int32)"],["wantedType","String"]]}
                    error: no method 'teleport' on channel 'channelbridge/extension'; run 'channelbridge list channelbridge/extension' for its methods
                    error: no channel 'shared_preferences_app_group' on this host; did you mean 'shared_preference_app_group'?
                    {"int32":3}
                    error: no METHOD after CHANNEL 'only-a-channel'; a line is CHANNEL METHOD [ARGS]
                    error: ARGS is not valid typed value notation: not JSON: unexpected end of JSON (at byte 7)
                    error: METHOD '{"key":' looks like ARGS: is the channel missing? a line is CHANNEL METHOD [ARGS]
                    {"map":[["launches",{"int32":3}]]}

                    """)
            #expect(outcome.stderr == "")
            #expect(outcome.status == 1)
            // The write went to the group the session chose.
            let stored = try await ProcessRunner.runOnThread(
                "channelbridge",
                ["prefs", "get", "launches", "--data-dir", live.directory.data, "--app-group", "group.b"])
            #expect(stored.stdout == #"{"int32":3}"# + "\n")
        }
    }

    /// The issue's case: `setAppGroup` then `getInt` from a shell script, every call succeeding.
    @Test func aScriptWhoseCallsAllSucceedExits0() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--app-group", "group.a", "--app-group", "group.b"])
            defer { Task { _ = await live.stop() } }
            let script = """
                shared_preference_app_group setAppGroup {"appGroup": "group.a"}
                shared_preference_app_group setDouble {"key": "ratio", "value": 0.5}
                shared_preference_app_group getDouble {"key": "ratio"}
                shared_preference_app_group getAll

                """
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["session", "--json", "--socket", live.socket], stdin: script)
            #expect(outcome.stdout == "null\nnull\n0.5\n{\"ratio\":0.5}\n")
            #expect(outcome.stderr == "")
            #expect(outcome.status == 0)
        }
    }

    /// When the host goes away the call in progress reports it, the session exits 69, and the lines
    /// after it are not run.
    @Test func aLostConnectionEndsTheSessionWith69() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { live.directory.remove() }
            let session = try LineDrivenChild(
                ProcessRunner.path(of: "channelbridge"), ["session", "--socket", live.socket])
            session.send(#"shared_preference_app_group setString {"key": "k", "value": "v"}"#)
            #expect(await session.stdout.next() == "null")
            live.host.send(signal: SIGKILL)
            _ = await live.host.waitForExit()
            session.send(#"shared_preference_app_group getString {"key": "k"}"#)
            session.send("channelbridge/extension getInputItems")
            let line = try #require(await session.stdout.next())
            #expect(line.hasPrefix("error: connection lost: "), "\(line)")
            #expect(await session.status() == 69)
            #expect(await LineDrivenChild.rest(of: session.stdout) == [])
            #expect(await LineDrivenChild.rest(of: session.stderr) == [])
            session.closeInput()
        }
    }

    /// On a terminal: a notice and prompts on stderr, `help`, results on stdout, Ctrl-D to end.
    @Test func onATerminalItPromptsAndExplains() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--text", "hi"])
            defer { Task { _ = await live.stop() } }
            let terminal = try PseudoTerminal()
            let session = try LineDrivenChild(
                ProcessRunner.path(of: "channelbridge"), ["session", "--socket", live.socket],
                stdin: terminal.childSide)
            terminal.closeChildSide()
            terminal.type("channelbridge/extension getInputItems\n")
            #expect(
                await session.stdout.next()
                    == #"[{"map":[["attachments",[{"map":[["typeIdentifier","public.plain-text"],["text","hi"]]}]]]}]"#)
            terminal.type("help\n")
            terminal.type("\u{04}")  // Ctrl-D at the start of a line: the end of input
            #expect(await session.status() == 0)
            #expect(await LineDrivenChild.rest(of: session.stdout) == [])
            let help = """
                One call per line: CHANNEL METHOD [ARGS]
                  ARGS is the rest of the line, lenient typed value notation as for 'channelbridge call'
                  (it may be wrapped in single quotes, as on a shell command line).
                  Each call prints one line: its result, or 'error: <message>'.
                  Empty lines and lines starting with # are skipped; 'help' prints this text.
                  'quit' or 'exit' alone, or the end of input (Ctrl-D), ends the session (to end the
                  extension's request, call it: channelbridge/extension exit).
                Example:
                  shared_preference_app_group setAppGroup {"appGroup": "group.a"}
                  shared_preference_app_group getInt {"key": "launches"}
                """
            let expected =
                "connected to \(live.socket); one call per line: CHANNEL METHOD [ARGS]; 'help' for more, Ctrl-D to end\n"
                + "channelbridge> channelbridge> " + help + "\nchannelbridge> "
            #expect(await LineDrivenChild.rest(of: session.stderr).joined(separator: "\n") == expected)
            terminal.close()
        }
    }

    @Test func anUnreachableHostAndBadOptionsAreReportedBeforeReadingInput() async throws {
        let unreachable = try await ProcessRunner.runOnThread(
            "channelbridge", ["session", "--socket", "/tmp/cb-nothing-here.sock", "--timeout", "0.2"],
            stdin: "channelbridge/extension getInputItems\n")
        #expect(unreachable.status == 69)
        #expect(unreachable.stdout == "")
        #expect(
            unreachable.stderr == "channelbridge session: cannot reach a host at /tmp/cb-nothing-here.sock: "
                + "no host is listening there (no socket file after 0.2 s; it may have finished)\n")
        let extra = try await ProcessRunner.runOnThread(
            "channelbridge", ["session", "channelbridge/extension", "getInputItems"])
        #expect(extra.status == 64)
        #expect(
            extra.stderr
                == "channelbridge session: unexpected argument 'channelbridge/extension'; the calls come on stdin\n"
                + "Run 'channelbridge session --help' for usage.\n")
    }
}

/// A pseudo-terminal whose child side becomes a process's standard input, with echo off (the test
/// does not read back what it types).
final class PseudoTerminal: Sendable {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    private let master: FileHandle
    let childSide: FileHandle

    private typealias OpenPT = @convention(c) (Int32) -> Int32
    private typealias PTSName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    /// Behind `_XOPEN_SOURCE`, which the Glibc module does not define: looked up at run time.
    private static func function<T>(_ name: String, as type: T.Type) throws -> T {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            throw Failed(description: "\(name) is not available")
        }
        return unsafeBitCast(symbol, to: type)
    }

    init() throws {
        let openpt = try Self.function("posix_openpt", as: OpenPT.self)
        let grantpt = try Self.function("grantpt", as: OpenPT.self)
        let unlockpt = try Self.function("unlockpt", as: OpenPT.self)
        let ptsname = try Self.function("ptsname", as: PTSName.self)
        let master = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw Failed(description: "posix_openpt: errno \(errno)")
        }
        let child = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard child >= 0 else { throw Failed(description: "open \(String(cString: name)): errno \(errno)") }
        var settings = termios()
        tcgetattr(child, &settings)
        settings.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(child, TCSANOW, &settings)
        self.master = FileHandle(fileDescriptor: master, closeOnDealloc: true)
        childSide = FileHandle(fileDescriptor: child, closeOnDealloc: true)
    }

    func type(_ text: String) {
        try? master.write(contentsOf: Data(text.utf8))
    }

    /// Closes this process's copy of the child side once the child has its own.
    func closeChildSide() {
        try? childSide.close()
    }

    func close() {
        try? master.close()
    }
}
