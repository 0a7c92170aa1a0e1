import ChannelBridgeTestSupport
import Foundation
import Testing

/// The documents' shell blocks as a new user pastes them: each ```` ```sh ```` block of README.md
/// and of the other `documents` whole, as one `bash -e` script, so that no line waits for what the
/// one before it printed. A line after `extension-host … &` then runs while the host may still be
/// starting; the commands wait for it (their connect timeout). Blocks with a `swift` line are left
/// out (see `notRunHere`; the `export PATH` line's work is done here: the built products come
/// first on `PATH`).
///
/// The script's standard output must be the block's `# →` lines in order (a background host
/// writes its ready line before it accepts anyone, so before any reply it gives), its standard
/// error the messages of its `# → exit N: …` lines, and each such line must exit N.
extension ReadmeTests {
    struct ShellBlock: Sendable {
        var document: String
        var firstLine: Int
        var lines: [ShellLine]
    }

    /// Every document's blocks, in `documents`' order.
    static func shellBlocks() throws -> [ShellBlock] {
        try documents.flatMap { try shellBlocks(of: $0) }
    }

    static func shellBlocks(of document: String) throws -> [ShellBlock] {
        let lines = try shellLines(of: document)
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        // The line numbers where blocks open, to split the document's lines into blocks.
        let openings = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element == "```sh" }.map { $0.offset + 1 }
        return openings.enumerated().map { index, opening in
            let end = index + 1 < openings.count ? openings[index + 1] : Int.max
            return ShellBlock(
                document: document, firstLine: opening,
                lines: lines.filter { $0.number > opening && $0.number < end })
        }
    }

    /// The block as one script: each line as written; a line shown exiting N runs with `-e` off
    /// and fails the script unless it exited N.
    static func script(_ block: ShellBlock) -> String {
        // A failed line ends the script; a host it started in the background must not outlive
        // it (it holds the script's output open).
        var script = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
        for line in block.lines {
            guard let failure = line.failure else {
                script += line.text + "\n"
                continue
            }
            script +=
                "set +e\n\(line.text)\nstatus=$?\nset -e\n"
                + "[ \"$status\" -eq \(failure.status) ] || { echo \"\(line.document):\(line.number): exit $status, not \(failure.status)\" >&2; exit 99; }\n"
        }
        return script
    }

    @Test(.disabled(if: Sanitizer.current != nil, "the documents' lines run the default build, not this sanitized one"))
    func everyShellBlockWorksPastedWhole() async throws {
        let blocks = try Self.shellBlocks().filter { block in
            !block.lines.contains { $0.command.hasPrefix("swift ") || $0.command.hasPrefix("export PATH=") }
        }
        // Driving a host, contracts, the greeter host, the examples, the codecs (README.md); the
        // Flutter-style host and Pigeon (Docs/flutter.md).
        #expect(blocks.count >= 7)
        #expect(
            blocks.contains {
                $0.lines.contains { $0.command.hasPrefix("extension-host ") && $0.command.hasSuffix("&") }
            })
        for block in blocks {
            let home = try TestDirectory(), tmp = try TestDirectory(), scripts = try TestDirectory()
            defer {
                Self.killProcesses(under: [home.path, tmp.path])
                home.remove()
                tmp.remove()
                scripts.remove()
            }
            var plain = Self.plainEnvironment(home: home.path, tmp: tmp.path)
            plain["PATH"] = ProcessRunner.productsDirectory.path + ":" + (plain["PATH"] ?? "/usr/bin:/bin")
            let environment = plain
            let file = try scripts.write("block.sh", Self.script(block))
            let place = "\(block.document):\(block.firstLine): the block pasted whole"
            let outcome = try await withHangGuard(seconds: 60) {
                try await ProcessRunner.runOnThread(
                    "/bin/bash", ["-e", file], environment: environment, currentDirectory: packageRoot)
            }
            #expect(outcome.status == 0, "\(place): \(outcome.stderr)")
            #expect(outcome.stdout == block.lines.flatMap(\.stdout).map { $0 + "\n" }.joined(), "\(place)")
            #expect(
                outcome.stderr == block.lines.compactMap { $0.failure.map { $0.stderr + "\n" } }.joined(), "\(place)")
            let left = Self.contents(tmp.path).filter { !$0.hasPrefix("TemporaryDirectory.") }
            #expect(left == [], "\(place) left these in TMPDIR")
        }
    }
}
