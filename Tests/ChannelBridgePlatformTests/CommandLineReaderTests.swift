import ChannelBridgePlatform
import Testing

@Suite struct CommandLineReaderTests {
    /// Every item, with the value each option takes when asked for one.
    static func read(_ arguments: [String], valued: Set<String>) -> [String] {
        var reader = CommandLineReader(arguments)
        var seen: [String] = []
        while let item = reader.next() {
            switch item {
            case .option(let name, let inlineValue) where valued.contains(name):
                seen.append("option \(name) = \(reader.value(inlineValue) ?? "<none>")")
            case .option(let name, let inlineValue):
                seen.append("option \(name)" + (inlineValue.map { " inline \($0)" } ?? ""))
            case .operand(let text):
                seen.append("operand \(text)")
            }
        }
        return seen
    }

    @Test func optionsTakeTheirValueInlineOrFromTheNextArgument() {
        #expect(
            Self.read(
                ["--socket", "a.sock", "--count=3", "--empty=", "--url=https://x/?a=b"],
                valued: ["socket", "count", "empty", "url"])
                == ["option socket = a.sock", "option count = 3", "option empty = ", "option url = https://x/?a=b"])
        // The value is the next argument whatever it looks like; at the end there is none.
        #expect(
            Self.read(["--text", "--json", "--text"], valued: ["text"]) == [
                "option text = --json", "option text = <none>",
            ])
    }

    @Test func onlyADoubleDashWithANameIsAnOption() {
        #expect(
            Self.read(["-", "--", "-h", "-3", "-x=1", "word", "--flag", "--=v", "--help=no"], valued: [])
                == [
                    "operand -", "operand --", "operand -h", "operand -3", "operand -x=1", "operand word",
                    "option flag",
                    "option  inline v", "option help inline no",
                ])
    }

    @Test func anItemGivesBackItsArgumentAsTyped() {
        var reader = CommandLineReader(["--a", "--b=c", "--d=", "e", "--"])
        var arguments: [String] = []
        while let item = reader.next() { arguments.append(item.argument) }
        #expect(arguments == ["--a", "--b=c", "--d=", "e", "--"])
    }
}
