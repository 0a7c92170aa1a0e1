import Foundation

/// `channelbridge pigeon adapt FILE`: makes a Pigeon-generated Swift file compile against the
/// `Flutter` module on Linux.
enum PigeonCommand: CLICommand {
    static let name = "pigeon"
    static let summary = "adapt a Pigeon-generated Swift file to the Flutter module"

    static let help = """
        usage: channelbridge pigeon adapt FILE [--output PATH] [--check]

        Pigeon's Swift output imports Flutter only on iOS and macOS:

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
        run on a background queue as on iOS; nothing else in the file changes. The same edits
        can be made by hand. Supported: the output of Pigeon 22.4.1 to 28.0.0, except @ProxyApi
        (see Protocol/flutter-embedder.md, section 7).

        The file is rewritten in place unless --output names another; a file already adapted is
        left as it is. --check changes nothing and exits 1 if the file still needs adapting.

        Exit status: 0 adapted (or already adapted); 1 needs adapting (--check); 64 usage;
        65 no Pigeon import block in the file; 66 the file cannot be read or written.

        Examples:
          channelbridge pigeon adapt ios/Runner/Messages.g.swift
          channelbridge pigeon adapt Messages.g.swift --output Sources/App/Messages.g.swift
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
        let adapted: PigeonImportBlock.Adaptation
        do {
            adapted = try PigeonImportBlock.adapt(text)
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

/// The platform-import block of Pigeon's Swift output, and the task-queue blocks of its host API
/// setups: the edits that add Linux.
enum PigeonImportBlock {
    enum Adaptation: Equatable {
        case adapted(String)
        case alreadyAdapted
    }

    struct NotFound: Error {
        var message: String
    }

    static let original = "#if os(iOS)"
    static let replacement = "#if os(iOS) || os(Linux)"

    /// The text with the condition before `import Flutter` widened to Linux, and the condition
    /// before each `let taskQueue = binaryMessenger.makeBackgroundTaskQueue?()` too, so that
    /// `@TaskQueue` methods run on a background queue as on iOS.
    static func adapt(_ text: String) throws(NotFound) -> Adaptation {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var foundImport = false, edited = false
        for index in lines.indices.dropLast() {
            let condition = lines[index].trimmingCharacters(in: .whitespaces)
            let next = lines[index + 1].trimmingCharacters(in: .whitespaces)
            guard next == "import Flutter" || isTaskQueueLine(next) else { continue }
            if next == "import Flutter" {
                guard condition == original || condition == replacement else { continue }
                foundImport = true
            }
            guard condition == original else { continue }
            lines[index] = lines[index].replacingOccurrences(of: original, with: replacement)
            edited = true
        }
        guard foundImport else {
            throw NotFound(message: "no Pigeon import block ('\(original)' followed by 'import Flutter')")
        }
        return edited ? .adapted(lines.joined(separator: "\n")) : .alreadyAdapted
    }

    /// `let NAME = binaryMessenger.makeBackgroundTaskQueue?()`, as Pigeon writes it (24.0.0 on).
    private static func isTaskQueueLine(_ line: String) -> Bool {
        line.hasPrefix("let ") && line.hasSuffix(" = binaryMessenger.makeBackgroundTaskQueue?()")
    }
}
