import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeContracts
import ChannelBridgeSocket
import ChannelBridgeStore
import Foundation

/// `channelbridge verify --transcript FILE --socket HOST`: replays a transcript's client side
/// against a real host and prints a diff per reply or event that does not match.
enum VerifyCommand: CLICommand {
    static let name = "verify"
    static let summary = "replay a transcript against a host; print a diff per mismatch"

    static let help = """
        usage: channelbridge verify --transcript FILE [--socket PATH | --start-host [--host-binary PATH] [--host-arg ARG]...]
                                    [--event-timeout SECONDS] [--timeout SECONDS]

        Replays the client's side of the transcript FILE (Protocol/transcript.md) on one session
        with a host, in order, and compares every reply and event with the transcript's values and
        matchers. Prints one line per mismatch to stdout,
          mismatch: interaction N on CHANNEL, method M: PATH: expected E, got G
        and exits 1 if there is any, else 0 ('verified: N interactions').

        Provider states (the transcript's 'given': preferences and input items, and an
        interaction's own 'given' preferences) are set up only when verify starts the host itself
        (--start-host): in a scratch data directory, the preferences written to its store (an
        interaction's just before it is sent) and the items passed with --items, and the host
        stopped and the directory removed afterwards. Against a running host (--socket) they are not set
        up: start that host with the items (extension-host --items FILE) and write the preferences
        (channelbridge prefs set --data-dir DIR ...) first; verify says so on stderr.

        Options:
          --transcript FILE      the transcript to replay
          --start-host           start an extension-host for the replay (the one beside channelbridge)
          --host-binary PATH     start this host executable instead (it takes extension-host's
                                 --socket, --data-dir and --items, and prints 'ready PATH')
          --host-arg ARG         one more argument for the started host (repeatable)
          --event-timeout SECONDS
                                 how long a stream's events may take (default 5)
        \(ClientContext.socketHelp)

        Examples:
          channelbridge verify --transcript Examples/Contracts/share-text.json --start-host
          channelbridge verify --transcript contract.json --socket /tmp/host.sock
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: ClientContext.valuedOptions.union(["transcript", "host-binary", "host-arg", "event-timeout"]),
            flags: ["start-host"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        guard let file = args.value("transcript") else { throw UsageError("needs --transcript FILE") }
        let startHost = args.flag("start-host") || args.value("host-binary") != nil
        if startHost, args.value("socket") != nil {
            throw UsageError("--socket names a running host; --start-host starts one: give one of them")
        }
        if !startHost, !args.values("host-arg").isEmpty { throw UsageError("--host-arg needs --start-host") }
        let eventTimeout =
            try args.value("event-timeout").map { try ClientContext.seconds($0, what: "--event-timeout") }
            ?? .seconds(5)
        let transcript: Transcript
        do {
            transcript = try Transcript(contentsOfFile: file)
        } catch {
            throw CommandFailure(ExitCode.dataError, "\(file): \(error.description)")
        }
        let verifier = TranscriptVerifier(transcript: transcript, eventTimeout: eventTimeout)
        var lines: [String]
        if startHost {
            let workspace = try DemoWorkspace()
            defer { workspace.tearDown() }
            try await setUp(
                transcript.given, in: workspace,
                transcriptDirectory: URL(fileURLWithPath: file).deletingLastPathComponent().path)
            var hostArguments = ["--socket", workspace.socket, "--data-dir", workspace.dataDirectory]
            if transcript.given.inputItems != nil { hostArguments += ["--items", workspace.directory + "/items.json"] }
            hostArguments += args.values("host-arg")
            if let binary = args.value("host-binary") {
                let child = try workspace.launch(binary, hostArguments)
                let ready = try await child.nextLine()
                guard ready.hasPrefix("ready ") else {
                    throw CommandFailure(ExitCode.failure, "the host printed '\(ready)' instead of its ready line")
                }
            } else {
                _ = try await workspace.startHost(hostArguments)
            }
            let socketArguments =
                ["--socket", workspace.socket] + (args.value("timeout").map { ["--timeout", $0] } ?? [])
            let context = try ClientContext(try Arguments(socketArguments, valued: ClientContext.valuedOptions))
            let dataDirectory = workspace.dataDirectory
            lines = try await replay(verifier, context) { preferences in
                try await write(preferences, dataDirectory: dataDirectory)
            }
        } else {
            let context = try ClientContext(args)
            if !transcript.given.isEmpty || transcript.interactions.contains(where: { !$0.given.isEmpty }) {
                Output.error(
                    "channelbridge verify: note: the transcript's provider states (given) were not set up: "
                        + "the host at \(context.socketPath) was not started by verify (see --help)")
            }
            lines = try await replay(verifier, context)
        }
        for line in lines { Output.line(line) }
        let mismatches = lines.filter { $0.hasPrefix("mismatch:") }.count
        if mismatches == 0 { Output.line("verified: \(transcript.interactionCount) interactions") }
        return mismatches == 0 ? ExitCode.success : ExitCode.failure
    }

    private static func replay(
        _ verifier: TranscriptVerifier, _ context: ClientContext,
        setUp: (@Sendable ([Transcript.ProviderStates.Preference]) async throws -> Void)? = nil
    ) async throws -> [String] {
        let client = try await context.connect()
        defer { client.close() }
        return await verifier.verify(on: client.connection.messenger, setUp: setUp)
    }

    /// §5: the items file and the preferences, in the scratch directory. A relative `file` of an
    /// item is relative to the transcript's directory.
    private static func setUp(
        _ given: Transcript.ProviderStates, in workspace: DemoWorkspace, transcriptDirectory: String
    ) async throws {
        if let items = given.inputItems {
            let text = JSONValue.object([JSONValue.Member("items", resolvingFiles(items, against: transcriptDirectory))]
            ).text
            try Data(text.utf8).write(to: URL(fileURLWithPath: workspace.directory + "/items.json"))
        }
        try await write(given.preferences, dataDirectory: workspace.dataDirectory)
    }

    /// Writes provider-state preferences, in order, to the store of `dataDirectory`: durable, and
    /// so seen by every read of the host that starts afterwards (store.md).
    private static func write(
        _ preferences: [Transcript.ProviderStates.Preference], dataDirectory: String
    ) async throws {
        let store = AppGroupStore(dataDirectory: dataDirectory)
        for preference in preferences {
            do {
                try await store.group(preference.appGroup).set(preference.value, forKey: preference.key)
            } catch {
                throw CommandFailure(
                    ExitCode.failure,
                    "cannot set up the preference '\(preference.key)' of \(preference.appGroup): \(error)")
            }
        }
    }

    private static func resolvingFiles(_ json: JSONValue, against directory: String) -> JSONValue {
        switch json {
        case .array(let elements):
            return .array(elements.map { resolvingFiles($0, against: directory) })
        case .object(let members):
            return .object(
                members.map { member in
                    if member.key == "file", case .string(let path) = member.value, !path.hasPrefix("/") {
                        return JSONValue.Member("file", .string(directory + "/" + path))
                    }
                    return JSONValue.Member(member.key, resolvingFiles(member.value, against: directory))
                })
        default:
            return json
        }
    }
}
