import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgePlatform
import Foundation

/// `channelbridge session`: several calls on one connection, one per input line, so that what a
/// call chooses for its session (`setAppGroup`) holds for the calls after it.
enum SessionCommand: CLICommand {
    static let name = "session"
    static let summary = "run calls read from stdin on one connection, one result line per call"

    static let lineHelp = """
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

    static let help = """
        usage: channelbridge session [--codec standard|json] [--socket PATH] [--timeout SECONDS] [--json]

        Connects once and runs one MethodChannel call per line of standard input, in order, each
        after the previous one has answered, all in the same session: a group chosen with
        setAppGroup holds for the calls after it, as it does for a Flutter UI. Prints one line per
        call: the result as canonical TVN (plain JSON with --json), or 'error: <message>' for a
        call that failed (the calls after it still run). On a terminal it prompts on stderr.

        \(lineHelp)

        Exit status: 0 every call succeeded; 1 a call failed or a line was not a call; 64 usage;
        69 host unreachable, or the connection was lost (the lines after it are not run); 75 the
        host did not answer within the timeout, connecting or to a call (the lines after it are
        not run).

        Options:
          --codec NAME    the channels' method codec: standard (default) or json
        \(ClientContext.optionsHelp)

        From a script:
          printf '%s\\n' 'shared_preference_app_group setAppGroup {"appGroup": "group.a"}' \\
                        'shared_preference_app_group getInt {"key": "launches"}' | channelbridge session
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ClientContext.valuedOptions.union(["codec"]), flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        if let extra = args.positionals.first {
            throw UsageError("unexpected argument '\(extra)'; the calls come on stdin")
        }
        let codecName = args.value("codec") ?? "standard"
        guard codecName == "standard" || codecName == "json" else {
            throw UsageError("unknown codec '\(codecName)'; use standard or json")
        }
        let context = try ClientContext(args)
        let interactive = Syscalls.standardInputIsTerminal
        let client = try await context.connect()
        defer { client.close() }
        if interactive {
            Output.error(
                "connected to \(context.socketPath); one call per line: CHANNEL METHOD [ARGS]; 'help' for more, Ctrl-D to end"
            )
        }
        let input = StandardInputLines()
        var failed = false
        while true {
            if interactive { Output.prompt("channelbridge> ") }
            guard let line = await input.next() else { break }
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty || text.hasPrefix("#") { continue }
            if text == "help" {
                Output.error(lineHelp)
                continue
            }
            if text == "quit" || text == "exit" { break }
            do {
                let call = try SessionLine(text)
                let result: StandardValue
                do {
                    result = try await invoke(call, on: client, json: codecName == "json")
                } catch let error as ChannelError where error.code == .notImplemented {
                    throw await CallCommand.notImplemented(
                        error, channel: call.channel, method: call.method, client: client, context: context)
                }
                Output.line(context.text(result))
            } catch {
                failed = true
                let failure = context.failure(error, oneShot: false)
                // One line per call, so details go on the same line.
                Output.line("error: " + failure.message.split(separator: "\n").joined(separator: " "))
                // A host that is gone, or that did not answer (stopped or overloaded), fails every later line too.
                if failure.status == ExitCode.unavailable || failure.status == ExitCode.temporaryFailure {
                    Output.flush()
                    return failure.status
                }
            }
            // Each result as soon as it is known: a terminal, or a program reading the other end of a pipe, sees it.
            Output.flush()
        }
        if interactive { Output.prompt("\n") }
        return failed ? ExitCode.failure : ExitCode.success
    }

    static func invoke(_ call: SessionLine, on client: ExtensionHostClient, json: Bool) async throws -> StandardValue {
        let arguments = try call.arguments.map { try ClientContext.value($0, what: "ARGS") } ?? .null
        return json
            ? try await client.invokeMethod(
                call.method, onChannel: call.channel, arguments: arguments, codec: JSONMethodCodec())
            : try await client.invokeMethod(call.method, onChannel: call.channel, arguments: arguments)
    }
}

/// One input line of `channelbridge session`: `CHANNEL METHOD [ARGS]`.
struct SessionLine: Equatable {
    var channel: String
    var method: String
    /// The rest of the line, as typed (without surrounding single quotes); nil when there is none.
    var arguments: String?

    init(channel: String, method: String, arguments: String?) {
        self.channel = channel
        self.method = method
        self.arguments = arguments
    }

    /// Splits a trimmed, non-empty line; a line without METHOD, or whose second word is where
    /// ARGS would begin (the channel left out), is a `CommandFailure` (status 1) naming the part
    /// it could not read.
    init(_ line: String) throws {
        func word(_ text: Substring) -> (Substring, Substring) {
            let end = text.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? text.endIndex
            return (text[..<end], text[end...].drop(while: { $0 == " " || $0 == "\t" }))
        }
        let (channel, afterChannel) = word(line[...])
        let (method, rest) = word(afterChannel)
        let shape = "a line is CHANNEL METHOD [ARGS]"
        guard !method.isEmpty else {
            throw CommandFailure(ExitCode.failure, "no METHOD after CHANNEL '\(channel)'; \(shape)")
        }
        // Typed value notation starts with one of these; a method name does not.
        if let first = method.first, "{[\"'".contains(first) {
            throw CommandFailure(
                ExitCode.failure, "METHOD '\(method)' looks like ARGS: is the channel missing? \(shape)")
        }
        var arguments = rest.isEmpty ? nil : String(rest)
        if let quoted = arguments, quoted.count >= 2, quoted.hasPrefix("'"), quoted.hasSuffix("'") {
            arguments = String(quoted.dropFirst().dropLast())
        }
        self.init(channel: String(channel), method: String(method), arguments: arguments)
    }
}
