/// The `extension-host` command: parse the command line, start, serve, and answer the exit status.
///
/// ```swift
/// // main.swift of the executable, after turning SIGINT/SIGTERM into `interruptions`:
/// let status = await ExtensionHostCommand.main(arguments: Array(CommandLine.arguments.dropFirst()),
///                                             interruptions: interruptions)
/// exit(status)
/// ```
public enum ExtensionHostCommand {
    /// Runs the host the command line describes and returns the process's exit status: the
    /// outcome's (0, 2, 3, 130, 143), 64 for a usage error, 1 when the host could not start, 0
    /// after `--help`. Signals arriving on `interruptions` interrupt the host. A custom host passes
    /// its own `plugins`.
    public static func main(arguments: [String], interruptions: AsyncStream<HostSignal>,
                            output: HostOutput = .process, plugins: HostPlugins = HostPlugins()) async -> Int32 {
        let options: HostOptions
        do {
            switch try HostOptions.parse(arguments) {
            case .help:
                output.standardOutput(HostOptions.usageText)
                return 0
            case .run(let parsed):
                options = parsed
            }
        } catch {
            output.standardError(error.message)
            return error.exitStatus
        }
        let host: ExtensionHost
        do {
            host = try await ExtensionHost.start(options: options, output: output, plugins: plugins)
        } catch {
            output.standardError("extension-host: \(error.message)")
            return error.exitStatus
        }
        let forwarding = Task {
            for await signal in interruptions { host.interrupt(signal) }
        }
        let record = await host.run()
        forwarding.cancel()
        return record.outcome.exitStatus
    }
}
