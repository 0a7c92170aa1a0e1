import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeStore

extension ExtensionHostCommand {
    /// The whole `main` of a host executable: runs the host `CommandLine.arguments` describe, with
    /// `plugins` registered in every session beside the built-in ones, and ends the process with
    /// the exit status (`main(arguments:interruptions:output:plugins:)` lists them). It sets the
    /// process-wide policy of the stock `extension-host`, which is this one call:
    ///
    /// - writing to a closed pipe or socket is an error on it (EPIPE), not the end of the process;
    /// - the first SIGINT or SIGTERM cancels the host's run: an orderly shutdown that waits at most
    ///   `--shutdown-timeout` for the replies it owes, exit status 130 or 143; a second one ends
    ///   the process at once with that status, for when even that is too long;
    /// - a host with plugins of its own gets an app's sandbox, as iOS gives an extension before
    ///   its code runs, named by `--bundle-identifier`: Foundation's `UserDefaults(suiteName:)`
    ///   of an entitled group is that group's store and the standard suite the app's own, and the
    ///   directories Foundation hands out (caches, application support, documents, downloads,
    ///   temporary) are the app's, under `DIR/apps/<bundle identifier>/`
    ///   (`TMPDIR` and `XDG_*` are set for this process and its children);
    /// - a Flutter-style handler that traps (a force unwrap of `nil`, a failed `as!`, an index out
    ///   of range) ends the process by its signal after a last line on standard error naming the
    ///   channel and method that were running (`PROGRAM: fatal signal SIGILL in the handler of
    ///   method 'add' on channel 'example/notes'`);
    /// - with `--isolation session`, each session runs in a worker process started from this same
    ///   executable (`/proc/self/exe`, the host's command line, an environment variable that makes
    ///   this call serve one session as a worker), so that such a trap ends that session only: its
    ///   client gets GOODBYE `sessionCrashed` and the host logs the channel, method and signal
    ///   (Protocol/extension-host.md §1.8). Keep the top-level code before this call free of side
    ///   effects a worker should not repeat.
    ///
    /// ```swift
    /// // main.swift: synchronous top-level code, so that the main thread runs the main run loop,
    /// // where Flutter-style handlers run as on iOS (`FlutterRunLoop`, in the `Flutter` module).
    /// var catalogue = PluginCatalogue()
    /// try catalogue.addFlutterPlugins([BatteryPlugin.self])
    /// FlutterRunLoop.runMain {
    ///     await ExtensionHostCommand.main(plugins: HostPlugins(catalogue: catalogue))
    /// }
    /// ```
    ///
    /// A host with no Flutter-style plugins can simply `await` it from asynchronous top-level code.
    ///
    /// - Parameter help: printed by `--help` before `extension-host`'s options (a usage line and
    ///   what the executable serves); without it, `--help` prints those options alone.
    public static func main(plugins: HostPlugins = HostPlugins(), help: String? = nil) async -> Never {
        ProcessSignals.ignoreBrokenPipes()
        FatalSignalReport.install()
        let installsSandbox = !plugins.catalogue.keys.isEmpty || plugins.setUpSession != nil
        if Syscalls.environment(WorkerChannel.environmentVariable) != nil {
            await runWorker(plugins: plugins, installsSandbox: installsSandbox)
        }
        let interruptions = HostSignal.watch(onRepeat: { ProcessExit.immediately($0.exitStatus) })
        ProcessExit.normally(
            await main(
                arguments: Array(CommandLine.arguments.dropFirst()), interruptions: interruptions,
                output: .process, plugins: plugins, help: help,
                installsSandbox: installsSandbox, workerExecutable: OwnExecutable.path()))
    }

    /// Makes `host`'s app sandbox the process's: its directories created, the environment
    /// variables Foundation reads for them set, and `AppSandbox.current` installed. It is named by
    /// `--bundle-identifier`, else by the `CFBundleIdentifier` of the `Info.plist` beside the
    /// executable (`Bundle.main`'s on Linux, as an iOS app's comes from its bundle), else the
    /// default; a `--bundle-identifier` that differs from that `Info.plist`'s is warned about.
    static func installSandbox(of host: ExtensionHost, output: HostOutput) throws(HostError) {
        try installSandbox(options: host.options, store: host.store, output: output)
    }

    /// Makes the app sandbox `options` name the process's. An isolated host's worker passes no
    /// `output` (the host has warned already) and `preparesDirectories: false`: the host made the
    /// directories and set the environment variables before it started the worker, which
    /// inherited them.
    static func installSandbox(
        options: HostOptions, store: AppGroupStore, output: HostOutput?, preparesDirectories: Bool = true
    ) throws(HostError) {
        let (bundleIdentifier, warning) = sandboxName(options, main: MainBundleInfo.besideExecutable())
        if let warning, let output { output.standardError("extension-host: warning: " + warning) }
        let sandbox: AppSandbox
        let environment: [(name: String, value: String)]
        do {
            sandbox = try AppSandbox(
                bundleIdentifier: bundleIdentifier, entitledAppGroups: options.appGroups,
                groups: store)
            environment = preparesDirectories ? try sandbox.prepareDirectories() : []
        } catch {
            throw HostError(.store, "the app's sandbox: \(error.message)")
        }
        for variable in environment { Syscalls.setEnvironment(variable.name, variable.value) }
        AppSandbox.install(sandbox)
    }

    /// The sandbox's bundle identifier: `--bundle-identifier` when given, else `main`'s (the
    /// `Info.plist` beside the executable), else the default; and a warning when the option and
    /// the `Info.plist` disagree.
    package static func sandboxName(_ options: HostOptions, main: MainBundleInfo?) -> (String, warning: String?) {
        guard let main else { return (options.bundleIdentifier, nil) }
        guard options.bundleIdentifierGiven else { return (main.identifier, nil) }
        guard main.identifier != options.bundleIdentifier else { return (main.identifier, nil) }
        return (
            options.bundleIdentifier,
            "--bundle-identifier \(options.bundleIdentifier) differs from the CFBundleIdentifier "
                + "\(main.identifier) of \(main.path), which Bundle.main.bundleIdentifier answers"
        )
    }
}
