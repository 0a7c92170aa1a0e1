/// A small option parser: `--name value`, `--name=value`, flags, and positionals, with `--help`
/// noticed anywhere.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    let wantsHelp: Bool

    /// `valued` names the options that take a value; `flagNames` those that do not.
    init(_ arguments: [String], valued: Set<String>, flags flagNames: Set<String> = []) throws {
        var help = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                help = true
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagNames.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    options[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
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
}
