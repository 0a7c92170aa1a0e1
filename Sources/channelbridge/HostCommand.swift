import ChannelBridgeHost
import ChannelBridgePlatform

/// `channelbridge extension-host [options]`: the same host as the `extension-host` executable (the same
/// library, options and exit statuses), so that `channelbridge demo` can start one as a child process
/// even when only `channelbridge` has been built.
enum HostCommand {
    static let name = "extension-host"

    static func run(_ arguments: [String]) async -> Int32 {
        // The same policy as `extension-host`'s main: the first SIGINT/SIGTERM cancels the host's run,
        // a second one ends the process at once.
        await ExtensionHostCommand.main(
            arguments: arguments,
            interruptions: HostSignal.watch(
                onRepeat: { ProcessExit.immediately($0.exitStatus) }))
    }
}
