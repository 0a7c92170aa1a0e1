import Foundation

/// `channelbridge pigeon adapt FILE`: makes a Pigeon-generated Swift file, or a plugin's own Swift
/// file, compile against the `Flutter` module on Linux (`FlutterImportAdaptation`).
enum PigeonCommand: CLICommand {
    static let name = "pigeon"
    static let summary = "adapt a Pigeon-generated or plugin Swift file to the Flutter module"

    static let help = """
        usage: channelbridge pigeon adapt FILE [--output PATH] [--check]

        Makes Swift written for Flutter's iOS embedder compile against ChannelBridge's Flutter
        module on Linux. What it changes depends on the file:

        Pigeon's output, whose platform-import block ends in #error:

            #if os(iOS)
              import Flutter
            #elseif os(macOS)
              import FlutterMacOS
            #else
              #error("Unsupported platform.")
            #endif

        'adapt' changes its first line to '#if os(iOS) || os(Linux)', so that Linux imports
        ChannelBridge's Flutter module, and the same condition around each host API's
        'let taskQueue = binaryMessenger.makeBackgroundTaskQueue?()', so that @TaskQueue methods
        run on a background queue as on iOS; nothing else in the file changes. Supported: the
        output of Pigeon 22.4.1 to 28.0.0, except @ProxyApi (see Protocol/flutter-embedder.md,
        section 7).

        A plugin's own file, whose 'import Flutter' is under '#if os(iOS)' with no #error branch
        (or at the top level), such as shared_preferences_foundation's SharedPreferencesPlugin.swift:
        every '#if os(iOS)' line becomes '#if os(iOS) || os(Linux)', so that Linux takes the iOS
        side of each (the import, 'registrar.messenger()' rather than macOS's '.messenger', and
        any other iOS-only code); and each top-level 'import Foundation' line is removed (with a
        blank line after it that would make two in a row), because 'import Flutter' brings
        Foundation and, with both imported, 'UserDefaults' is ambiguous between Foundation's and
        the Flutter module's (which keeps a host's suites in its store). Nothing else changes:
        '#if os(macOS)' code stays out, as on iOS.

        Lines are matched without their indentation, which they keep; top-level means outside
        every #if block. The same edits can be made by hand.

        The file is rewritten in place unless --output names another; a file already adapted is
        left as it is. --check changes nothing and exits 1 if the file still needs adapting.

        Exit status: 0 adapted (or already adapted); 1 needs adapting (--check); 64 usage;
        65 no Flutter import in the file; 66 the file cannot be read or written.

        Examples:
          channelbridge pigeon adapt ios/Runner/Messages.g.swift
          channelbridge pigeon adapt Messages.g.swift --output Sources/App/Messages.g.swift
          channelbridge pigeon adapt Sources/MyPlugin/MyPlugin.swift
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["output"], flags: ["check"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.first == "adapt" else {
            throw UsageError(
                args.positionals.isEmpty ? "missing 'adapt'" : "unknown subcommand '\(args.positionals[0])'")
        }
        guard args.positionals.count == 2 else {
            throw UsageError(args.positionals.count < 2 ? "needs FILE" : "unexpected argument '\(args.positionals[2])'")
        }
        let path = args.positionals[1]
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(66, "\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw CommandFailure(66, "\(path): is a directory, not a Swift file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(66, "\(path): cannot read the file (permission denied?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(66, "\(path): not UTF-8 text; Pigeon writes UTF-8 Swift files")
        }
        let adapted: FlutterImportAdaptation.Adaptation
        do {
            adapted = try FlutterImportAdaptation.adapt(text)
        } catch {
            throw CommandFailure(ExitCode.dataError, "\(path): \(error.message)")
        }
        if args.flag("check") {
            switch adapted {
            case .alreadyAdapted:
                Output.line("\(path): adapted")
                return ExitCode.success
            case .adapted:
                Output.line("\(path): needs adapting")
                return ExitCode.failure
            }
        }
        let output = args.value("output") ?? path
        let result: String
        switch adapted {
        case .alreadyAdapted:
            if output == path {
                Output.line("\(path): already adapted")
                return ExitCode.success
            }
            result = text
        case .adapted(let text):
            result = text
        }
        do {
            try Data(result.utf8).write(to: URL(fileURLWithPath: output))
        } catch {
            throw CommandFailure(66, "cannot write \(output): \(error.localizedDescription)")
        }
        Output.line(output == path ? "\(path): adapted" : "\(output): adapted from \(path)")
        return ExitCode.success
    }
}
