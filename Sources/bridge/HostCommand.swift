import ChannelBridgeHost

/// `bridge extension-host [options]`: the same host as the `extension-host` executable (the same
/// library, options and exit statuses), so that `bridge demo` can start one as a child process
/// even when only `bridge` has been built.
enum HostCommand {
    static let name = "extension-host"

    static func run(_ arguments: [String]) async -> Int32 {
        await ExtensionHostCommand.main(arguments: arguments, interruptions: HostSignal.watch())
    }
}
