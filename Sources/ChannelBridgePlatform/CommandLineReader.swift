/// Reads a command line one argument at a time, in the one syntax every executable of the package
/// takes: an argument that starts with `--` and has more after it is an option, its name what
/// follows the dashes up to the first `=`, and its value what follows that `=` or else the next
/// argument; every other argument (`-`, `--`, `-h`, `-3`, a word) is an operand. What an option
/// means, which take values and what is an error is the caller's.
///
/// ```swift
/// var reader = CommandLineReader(["--socket=/tmp/h.sock", "--count", "3", "call"])
/// while let item = reader.next() {
///     if case .option(let name, let inline) = item { print(name, reader.value(inline) ?? "none") }
/// }   // socket /tmp/h.sock, count 3 (and the operand "call")
/// ```
package struct CommandLineReader {
    package enum Item: Equatable {
        /// `--name` or `--name=value`: the name without its dashes, and the text after `=`.
        case option(String, inlineValue: String?)
        case operand(String)

        /// The argument as it was given.
        package var argument: String {
            switch self {
            case .option(let name, nil): "--" + name
            case .option(let name, let inlineValue?): "--" + name + "=" + inlineValue
            case .operand(let argument): argument
            }
        }
    }

    private let arguments: [String]
    private var index = 0

    package init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// The next argument as an option or an operand; `nil` after the last.
    package mutating func next() -> Item? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        guard argument.hasPrefix("--"), argument.count > 2 else { return .operand(argument) }
        let name = argument.dropFirst(2)
        guard let equals = name.firstIndex(of: "=") else { return .option(String(name), inlineValue: nil) }
        return .option(String(name[..<equals]), inlineValue: String(name[name.index(after: equals)...]))
    }

    /// The value of the option just read: `inlineValue` when it had one, else the next argument,
    /// which is used up; `nil` when there is none.
    package mutating func value(_ inlineValue: String?) -> String? {
        if let inlineValue { return inlineValue }
        guard index < arguments.count else { return nil }
        defer { index += 1 }
        return arguments[index]
    }
}
