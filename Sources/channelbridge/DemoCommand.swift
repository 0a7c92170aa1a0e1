import ChannelBridgeClient
import ChannelBridgeCodec
import Foundation

/// `channelbridge demo`: the originating setup end to end, with real processes: an extension host with a
/// shared text and URL, this process as the extension's UI, and a containing app watching the
/// app group's store.
enum DemoCommand: CLICommand {
    static let name = "demo"
    static let summary = "run the share-extension flow end to end with real processes"

    static let help = """
        usage: channelbridge demo

        Starts an extension-host child process on a temporary socket and data directory with a
        shared text and URL (written under ShareKey, as the originating share extension does),
        and a second process standing in for the containing app, which watches the app group.
        Then, as the extension's UI would: reads the input items, reads ShareKey through
        shared_preference_app_group, stores a preference (the containing app sees it), clears
        ShareKey, and calls exit. Prints a transcript (→ sent, ← received) and the host's
        completion record; exits 0, or non-zero naming the step that failed. Leaves nothing behind.
        """

    static let group = "group.demo"
    static let text = "Hello from the share sheet"
    static let url = "https://example.com/article?id=42"

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: [])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let workspace = try DemoWorkspace()
        defer { workspace.tearDown() }
        do {
            try await runFlow(workspace)
            return ExitCode.success
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(ExitCode.failure, "demo failed: \(ClientContext.describe(error))")
        }
    }

    static func say(_ line: String) {
        Output.line(line)
        Output.flush()
    }

    static func step<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw CommandFailure(
                ExitCode.failure, "demo failed while trying to \(what): \(ClientContext.describe(error))")
        }
    }

    static func runFlow(_ workspace: DemoWorkspace) async throws {
        say("ChannelBridge demo: a share extension's UI talking to its native side over MethodChannels")
        say("")
        let host = try await step("start the extension host") {
            try await workspace.startHost([
                "--socket", workspace.socket, "--data-dir", workspace.dataDirectory,
                "--app-group", group, "--text", text, "--url", url, "--share-key", "ShareKey",
            ])
        }
        say("host   started: extension-host pid \(host.process.processIdentifier), \(host.readyLine)")
        let app = try await step("start the containing app") {
            try await workspace.startContainingApp([
                "prefs", "watch", "--data-dir", workspace.dataDirectory, "--app-group", group,
            ])
        }
        say("app    started: containing app pid \(app.process.processIdentifier), watching \(group)")

        let client = try await step("connect to the host") {
            try await ExtensionHostClient.connect(to: workspace.socket)
        }
        say("ui     connected to \(workspace.socket)")
        say("")

        say("ui →   channelbridge/extension getInputItems")
        let items = try await step("read the input items") { try await client.rawItems() }
        say("ui ←   \(TypedValueNotation.canonicalText(items))")

        let prefs = try await step("choose the app group") { try await client.sharedPreferences(appGroup: group) }
        say("ui →   shared_preference_app_group setAppGroup {appGroup: \(group)}")
        say("ui →   shared_preference_app_group getString {key: ShareKey}")
        let shared = try await step("read ShareKey") { try await prefs.getString("ShareKey") }
        say("ui ←   \(shared.map { TypedValueNotation.canonicalText(.string($0)) } ?? "null")")
        guard let shared, shared.contains(text), shared.contains(url) else {
            throw CommandFailure(ExitCode.failure, "demo failed: ShareKey does not hold the shared text and URL")
        }

        say("ui →   shared_preference_app_group setString {key: lastShared, value: \(text)}")
        try await step("store a preference") { try await prefs.setString("lastShared", text) }
        say("ui ←   null (stored)")
        let seen = try await step("see the containing app observe the change") { try await app.nextLine() }
        say("app ←  \(seen)")

        say("ui →   shared_preference_app_group setString {key: ShareKey, value: \"\"}")
        try await step("clear ShareKey") { try await prefs.setString("ShareKey", "") }
        say("ui ←   null (cleared)")
        let cleared = try await step("see the containing app observe ShareKey cleared") { try await app.nextLine() }
        say("app ←  \(cleared)")

        say("ui →   channelbridge/extension exit")
        try await step("call exit") { try await client.exit() }
        say("ui ←   null (the host completes the request)")
        client.close()

        let (status, record) = try await step("wait for the host to finish") { try await host.finish() }
        say("")
        say("host   completion record: \(record)")
        say("host   exited with status \(status)")
        guard status == 0 else {
            throw CommandFailure(ExitCode.failure, "demo failed: the host exited with status \(status)")
        }
        say("")
        say("demo complete")
    }
}
