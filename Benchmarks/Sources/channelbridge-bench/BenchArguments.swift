/// The command line's arguments: options that take a value (`--name VALUE` or `--name=VALUE`),
/// flags, and positionals, with `--help` (or `-h`) noticed anywhere; `--` ends the options.
struct BenchArguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private(set) var wantsHelp = false

    /// `valued` names the options that take a value; `flagNames` those that do not.
    init(_ arguments: [String], valued: Set<String>, flags flagNames: Set<String> = []) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--"), argument != "--" else {
                if argument == "--" {
                    positionals += rest
                    break
                }
                if argument == "-h" { wantsHelp = true } else { positionals.append(argument) }
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix(while: { $0 != "=" }))
            let inline = body.contains("=") ? String(body.drop(while: { $0 != "=" }).dropFirst()) : nil
            if name == "help" {
                wantsHelp = true
            } else if flagNames.contains(name) {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                guard let value = inline ?? rest.popFirst() else { throw UsageError("--\(name) needs a value") }
                options[name] = value
            } else {
                throw UsageError("unknown option --\(name); see --help for the options", saysWhatToDo: true)
            }
        }
    }

    func value(_ name: String) -> String? { options[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// `text` as a whole number above 0, else a usage error naming `option`.
    static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError("\(option) takes a positive whole number") }
        return value
    }
}

/// The command line is wrong; `message` says how.
struct UsageError: Error {
    var message: String
    /// The message already says what to do: it is the whole report, one line.
    var saysWhatToDo: Bool
    init(_ message: String, saysWhatToDo: Bool = false) {
        self.message = message
        self.saysWhatToDo = saysWhatToDo
    }
}
