import ChannelBridgePlatform
import ChannelBridgePlugins

/// The `extension-host` command: parse the command line, start, serve, and answer the exit status.
///
/// An executable's `main.swift` is one call, which also sets the process-wide policy
/// (`main(plugins:help:)`):
///
/// ```swift
/// await ExtensionHostCommand.main(plugins: plugins)
/// ```
public enum ExtensionHostCommand {
    /// Runs the host the command line describes and returns the process's exit status: the
    /// outcome's (0, 2, 3, 130, 143), 64 for a usage error, 1 when the host could not start, 0
    /// after `--help`. The first signal on `interruptions` cancels the host's `run()`, which ends
    /// the request as interrupted by that signal and shuts down in order. A custom host passes
    /// its own `plugins`.
    package static func main(
        arguments: [String], interruptions: AsyncStream<HostSignal>,
        output: HostOutput = .process, plugins: HostPlugins = HostPlugins()
    ) async -> Int32 {
        await main(
            arguments: arguments, interruptions: interruptions, output: output, plugins: plugins, help: nil,
            installsSandbox: false, workerExecutable: nil)
    }

    /// `main`, with `help` printed before the options' usage for `--help`; with `installsSandbox`,
    /// the host's app sandbox becomes the process's before any session starts (`installSandbox`).
    /// `workerExecutable` is the file an isolated host starts its workers from (`--isolation
    /// session`); `nil` in a process that is not a host executable.
    static func main(
        arguments: [String], interruptions: AsyncStream<HostSignal>, output: HostOutput,
        plugins: HostPlugins, help: String?, installsSandbox: Bool, workerExecutable: String?
    ) async -> Int32 {
        var options: HostOptions
        do {
            switch try HostOptions.parse(arguments) {
            case .help:
                output.standardOutput((help.map { $0 + "\n\n" } ?? "") + HostOptions.usageText)
                return 0
            case .run(let parsed):
                options = parsed
            }
        } catch {
            output.standardError(error.message)
            return error.exitStatus
        }
        // Isolation by default where plugins other than this project's run, and a worker can be
        // started: a host executable with plugins of its own.
        let hasOwnPlugins = !plugins.catalogue.keys.isEmpty || plugins.setUpSession != nil
        if options.isolation == nil {
            options.isolation = workerExecutable != nil && hasOwnPlugins ? .session : HostIsolation.none
        }
        let host: ExtensionHost
        do throws(HostError) {
            // A worker takes the host's command line, with the data directory made absolute as
            // the host's is, so that both name the same store whatever the worker's directory.
            let launch = workerExecutable.map {
                WorkerPool.Launch(
                    executable: $0,
                    arguments: [CommandLine.arguments.first ?? $0] + arguments
                        + ["--data-dir", AbsolutePath.of(options.dataDirectory)])
            }
            host = try await ExtensionHost.start(
                options: options, output: output, plugins: plugins, workerLaunch: launch)
        } catch {
            output.standardError("extension-host: \(error.message)")
            return error.exitStatus
        }
        if installsSandbox {
            do {
                try installSandbox(of: host, output: output)
            } catch {
                output.standardError("extension-host: \(error.message)")
                return error.exitStatus
            }
        }
        return await run(host, interruptions: interruptions).outcome.exitStatus
    }

    /// Runs `host` in a child task and cancels it at the first signal on `interruptions`: the
    /// signal becomes the cancellation of `run()`, which ends the request as interrupted by it.
    static func run(_ host: ExtensionHost, interruptions: AsyncStream<HostSignal>) async -> CompletionRecord {
        let interruption = LockedValue<HostSignal?>(nil)
        return await withTaskGroup(of: CompletionRecord?.self) { group in
            group.addTask {
                await host.run(cancellationSignal: { interruption.withLock { $0 } ?? .sigterm })
            }
            group.addTask {
                for await signal in interruptions {
                    interruption.withLock { $0 = signal }
                    return nil
                }
                return nil  // no more signals can come: the host runs on
            }
            while let result = await group.next() {
                if let record = result {
                    group.cancelAll()  // the host ended first: stop waiting for signals
                    return record
                }
                if interruption.withLock({ $0 }) != nil { group.cancelAll() }
            }
            preconditionFailure("the host's task ended without a record")
        }
    }
}
