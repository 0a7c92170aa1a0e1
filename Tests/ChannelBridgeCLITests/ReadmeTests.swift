import ChannelBridgeTestSupport
import Foundation
import Testing

/// Runs the shell commands shown in README.md, so the README cannot drift from what the tools do.
/// A line `# → TEXT` after a command is its expected stdout (`# → exit N: LINE` an expected exit
/// status and first stderr line); `extension-host … &` starts a host for the lines after it.
/// `swift …` lines are the package manager's (`swift run channelbridge demo` runs in DemoCommandTests,
/// `swift test` is CI itself).
@Suite struct ReadmeTests {
    struct Step {
        var command: String
        var expected: String?
    }

    static func blocks() throws -> [[Step]] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [[Step]] = []
        var current: [Step]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "```sh" { current = []; continue }
            if line == "```", let steps = current {
                blocks.append(steps)
                current = nil
                continue
            }
            guard current != nil else { continue }
            if line.hasPrefix("# → ") {
                current![current!.count - 1].expected = String(line.dropFirst(4))
            } else if !line.isEmpty {
                // A trailing comment explains the command; it is not part of it.
                let command = line.range(of: "  #").map { String(line[..<$0.lowerBound]) } ?? line
                current!.append(Step(command: command.trimmingCharacters(in: .whitespaces)))
            }
        }
        return blocks
    }

    /// Splits a command line into words the way sh does for the quoting the README uses.
    static func words(_ line: String) -> [String] {
        var words: [String] = [], word = "", quote: Character?, inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    @Test func everyShellCommandInTheReadmeDoesWhatItSays() async throws {
        let blocks = try Self.blocks()
        #expect(blocks.flatMap { $0 }.filter { $0.command.hasPrefix("channelbridge ") }.count >= 6)
        for block in blocks {
            try await run(block)
        }
    }

    func run(_ steps: [Step]) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        var host: HostProcess?
        defer { if let host { host.send(signal: SIGKILL) } }
        let environment = ProcessInfo.processInfo.environment.merging(
            ["PATH": ProcessRunner.productsDirectory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")],
            uniquingKeysWith: { $1 })
        for step in steps {
            if step.command.hasPrefix("swift ") { continue }
            // The README's socket path, moved into this test's own directory.
            let command = step.command.replacingOccurrences(of: "/tmp/readme.sock", with: directory.socket)
            if command.hasPrefix("extension-host ") {
                #expect(command.hasSuffix(" &"))
                let arguments = Self.words(String(command.dropLast(2))).dropFirst()
                let started = try HostProcess(Array(arguments) + ["--data-dir", directory.data])
                #expect(try await started.readyLine() == "ready \(directory.socket)")
                host = started
                continue
            }
            let outcome = try ProcessRunner.run("/bin/sh", ["-c", command], environment: environment)
            if let expected = step.expected, expected.hasPrefix("exit ") {
                let status = expected.dropFirst(5).prefix(while: { $0 != ":" })
                #expect(outcome.status == Int32(status), "\(step.command)")
                #expect(outcome.stderr.split(separator: "\n").first.map(String.init) == String(expected.split(separator: ":", maxSplits: 1)[1].dropFirst()),
                        "\(step.command)")
            } else {
                #expect(outcome.status == 0, "\(step.command): \(outcome.stderr)")
                if let expected = step.expected {
                    #expect(outcome.stdout == expected + "\n", "\(step.command)")
                }
            }
        }
        if let running = host {
            // The session ends with `channelbridge exit`: the host completes and prints its record.
            let exit = await running.waitForExit()
            #expect(exit.status == 0)
            host = nil
        }
    }
}
