import ChannelBridgePlatform

/// A subcommand's arguments, read with `CommandLineReader`: options that take a value, flags, and
/// positionals, with `--help` (or `-h`) noticed anywhere.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    let wantsHelp: Bool

    /// `valued` names the options that take a value; `flagNames` those that do not.
    init(_ arguments: [String], valued: Set<String>, flags flagNames: Set<String> = []) throws {
        var help = false
        var reader = CommandLineReader(arguments)
        while let item = reader.next() {
            switch item {
            case .operand("-h"), .option("help", inlineValue: nil):
                help = true
            case .operand(let positional):
                positionals.append(positional)
            case .option(let name, let inlineValue) where flagNames.contains(name):
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            case .option(let name, let inlineValue) where valued.contains(name):
                guard let value = reader.value(inlineValue) else { throw UsageError("--\(name) needs a value") }
                options[name, default: []].append(value)
            case .option(let name, _):
                let known = (valued.union(flagNames).sorted() + ["help"]).map { "--" + $0 }
                let hint =
                    Suggestion.closest(to: "--" + name, in: known).map { "did you mean \($0)?" }
                    ?? "see --help for the options"
                throw UsageError("unknown option --\(name); \(hint)", saysWhatToDo: true)
            }
        }
        wantsHelp = help
    }

    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// `text` as a whole number above 0, else a usage error naming `option`.
    static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError("\(option) takes a positive whole number") }
        return value
    }
}
