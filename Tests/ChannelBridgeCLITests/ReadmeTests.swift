import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// The documents' shell lines, run as a new user types them on a fresh clone: every line of every
/// ```` ```sh ```` block of README.md, then of the other `documents`, exactly as written, in order,
/// in one plain `/bin/sh` started in the checkout, with a fresh `HOME`, `TMPDIR` in a directory of
/// this test's own, no `XDG_*` variables, and the caller's `PATH` with every entry inside a SwiftPM
/// build folder (`/.build/`) removed. The test never puts the build folder on `PATH`: the README's
/// own `export PATH="$(swift build --show-bin-path):$PATH"` line does, and without it the lines
/// after it fail (a document under `Docs/` or `Benchmarks/` is read after the README's setup).
///
/// After each line the test asks the shell for `$?` (an `echo` it sends after the line) and reads
/// the line's standard output and error up to that point. A line followed by `# → TEXT` lines must
/// print exactly those lines; a line with none must print nothing; `# → exit N: TEXT` means exit
/// status N and TEXT as the whole of standard error; every other line must exit 0 with nothing on
/// standard error. A line ending in `&` starts a background job: as a person waits for the host's
/// `ready` line, the test waits for the job's `# →` lines before typing the next line.
///
/// The `swift` lines are not run: while `swift test` runs, SwiftPM holds the package's build
/// folder lock, and `swift run` or `swift build` started from inside it wait for that lock forever
/// (`swift build --show-bin-path` takes no lock, so the `export` line runs as typed). Each is in
/// `notRunHere` with what stands in for it; a `swift` line missing there fails the test, and so
/// does an entry there that no document has:
/// - `swift build`: the test checks what the line promises, that `swift build --show-bin-path`
///   (run in the same plain shell) is the folder this `swift test` built every product into, and
///   that every executable target of Package.swift is in it.
/// - the others are the suite itself or checked elsewhere, as `notRunHere` says.
///
/// At the end nothing may be left behind: nothing in `TMPDIR` (no scratch directory, socket, lock
/// file or store; SwiftPM's own empty `TemporaryDirectory.*` folders excepted) and no store in the
/// fresh `HOME`. Processes a failed run left in the test's
/// directories (a background host) are killed.
@Suite struct ReadmeTests {
    struct ShellLine: Sendable {
        /// The document's path in the checkout, and the line's number in it.
        var document: String
        var number: Int
        var text: String
        var stdout: [String] = []
        var failure: (status: Int32, stderr: String)?

        /// The line without a trailing comment (a space, then `#`).
        var command: String {
            (text.range(of: " #").map { String(text[..<$0.lowerBound]) } ?? text).trimmingCharacters(in: .whitespaces)
        }
    }

    /// The documents whose shell lines run, in this order, in one shell: README.md first, whose
    /// `export PATH` line the others rely on. Every Markdown file under `Docs/` and `Benchmarks/`
    /// with a ```` ```sh ```` block must be listed (`everyDocumentWithShellLinesIsRun`), so that a
    /// block moved out of the README is still run.
    static let documents = ["README.md", "Docs/flutter.md", "Benchmarks/README.md", "Docs/stress.md"]

    /// The `swift` lines, and what stands in for each (see the doc comment above).
    static let notRunHere: [String: String] = [
        "swift run channelbridge demo":
            "DemoCommandTests runs `channelbridge demo`, the program this line builds and runs",
        "swift test": "the suite this test is part of",
        "swift build":
            "checked: `swift build --show-bin-path` is this run's products folder and holds every executable target",
        "swift run -c release --package-path Benchmarks channelbridge-bench":
            "minutes of benchmarks; the Benchmarks package's BenchTests runs `channelbridge-bench` at a small scale",
        "swift run -c release --package-path Benchmarks channelbridge-bench rtt --json":
            "a benchmark; the Benchmarks package's BenchTests runs its JSON output at a small scale",
        "swift test --package-path Benchmarks": "the Benchmarks package's suite, which .ci/run runs",
        "swift run -c release channelbridge stress":
            "minutes of stress; StressCommandTests runs every scenario at a tiny scale",
        "swift run -c release channelbridge stress vanish --json":
            "a stress scenario; StressCommandTests runs its JSON output at a tiny scale",
        "swift run -c release channelbridge stress soak --seconds 600":
            "ten minutes of soak; StressCommandTests runs it for 4 s",
        "swift run -c release channelbridge stress listeners-cancel listeners-drop --seconds 60":
            "two minutes of listener churn; StressCommandTests runs it for 3 s each",
    ]

    /// Every document's shell lines, in `documents`' order.
    static func shellLines() throws -> [ShellLine] {
        try documents.flatMap { try shellLines(of: $0) }
    }

    static func shellLines(of document: String) throws -> [ShellLine] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        var lines: [ShellLine] = []
        var inBlock = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated()
        {
            if line == "```sh" { inBlock = true; continue }
            if line.hasPrefix("```") { inBlock = false; continue }
            guard inBlock, !line.isEmpty else { continue }
            if line.hasPrefix("# → ") {
                let shown = String(line.dropFirst(4))
                if shown.hasPrefix("exit "), let colon = shown.firstIndex(of: ":"),
                    let status = Int32(shown[shown.index(shown.startIndex, offsetBy: 5)..<colon])
                {
                    lines[lines.count - 1].failure = (status, String(shown[shown.index(colon, offsetBy: 2)...]))
                } else {
                    lines[lines.count - 1].stdout.append(shown)
                }
            } else {
                lines.append(ShellLine(document: document, number: index + 1, text: line))
            }
        }
        return lines
    }

    /// What a new user's shell has: the caller's environment without SwiftPM build folders on
    /// `PATH`, without `XDG_*`, with a fresh `HOME` and this test's `TMPDIR`.
    static func plainEnvironment(home: String, tmp: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("XDG_") }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").filter { !$0.contains("/.build/") }
        environment["PATH"] = path.joined(separator: ":")
        environment["HOME"] = home
        environment["TMPDIR"] = tmp
        return environment
    }

    static func executableTargets() throws -> [String] {
        var manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Targets declared only under an environment variable (the fuzz targets) are not built here.
        if let conditional = manifest.range(of: "\nif Context.environment") {
            manifest = String(manifest[..<conditional.lowerBound])
        }
        return manifest.matches(of: /\.executableTarget\(name: "([^"]+)"/).map { String($0.output.1) }
    }

    /// Not in a sanitized run: the README's `export PATH="$(swift build --show-bin-path):$PATH"`
    /// names the default build's folder, not the sanitized products this run built and tests.
    @Test(.disabled(if: Sanitizer.current != nil, "the documents' lines run the default build, not this sanitized one"))
    func everyShellLineDoesWhatTheReadmeSays() async throws {
        let lines = try Self.shellLines()
        #expect(lines.filter { $0.command.hasPrefix("channelbridge ") }.count >= 6)
        let home = try TestDirectory(), tmp = try TestDirectory()
        defer {
            Self.killProcesses(under: [home.path, tmp.path])
            home.remove()
            tmp.remove()
        }
        let environment = Self.plainEnvironment(home: home.path, tmp: tmp.path)
        let shell = try LineDrivenChild("/bin/sh", [], environment: environment, currentDirectory: packageRoot.path)
        defer { if shell.process.isRunning { kill(shell.process.processIdentifier, SIGKILL) } }
        for line in lines {
            if line.command.hasPrefix("swift ") {
                guard Self.notRunHere[line.command] != nil else {
                    Issue.record(
                        "\(line.document):\(line.number): `\(line.command)` is a swift line ReadmeTests does not know")
                    continue
                }
                if line.command == "swift build" { try await checkSwiftBuild(environment) }
                continue
            }
            guard try await run(line, in: shell) else { break }
        }
        shell.closeInput()
        _ = try await withHangGuard(seconds: 60) { await shell.status() }
        // SwiftPM itself leaves three empty TemporaryDirectory.XXXXXX folders in TMPDIR per
        // invocation (`swift build --show-bin-path` included); everything else is the documents'.
        let left = Self.contents(tmp.path).filter { !$0.hasPrefix("TemporaryDirectory.") }
        #expect(left == [], "the documents' lines left these in TMPDIR")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/.local/share/channelbridge"))
    }

    /// Types `line` into the shell and checks what it printed and its status. False when the
    /// shell can no longer be trusted (a line hung).
    func run(_ line: ShellLine, in shell: LineDrivenChild) async throws -> Bool {
        let marker = "@@readme-status"
        shell.send(line.text)
        shell.send("echo \"\(marker) $?\"; echo \(marker) >&2")
        let place = "\(line.document):\(line.number): \(line.text)"
        var stdout: [String] = [], stderr: [String] = [], status: Int32?
        do {
            (stdout, status, stderr) = try await withHangGuard(seconds: 60) {
                () async -> ([String], Int32?, [String]) in
                var stdout: [String] = [], stderr: [String] = [], status: Int32?
                while let text = await shell.stdout.next() {
                    guard let found = text.range(of: marker + " ") else { stdout.append(text); continue }
                    if found.lowerBound != text.startIndex {
                        stdout.append(String(text[..<found.lowerBound]) + "(no newline)")
                    }
                    status = Int32(text[found.upperBound...])
                    break
                }
                while let text = await shell.stderr.next(), text != marker { stderr.append(text) }
                return (stdout, status, stderr)
            }
            // A background job's lines (the host's ready line) may come after the shell's answer:
            // wait for them as a person waits for `ready` before typing on.
            if line.command.hasSuffix("&"), stdout.count < line.stdout.count {
                let missing = line.stdout.count - stdout.count
                stdout += try await withHangGuard(seconds: 30) { () async -> [String] in
                    var lines: [String] = []
                    while lines.count < missing, let text = await shell.stdout.next() { lines.append(text) }
                    return lines
                }
            }
        } catch is HangGuardExpired {
            let errors = shell.stderr.waiting.compactMap { $0 }
            Issue.record("\(place): hung; printed \(stdout), and on stderr \(stderr + errors)")
            return false
        }
        if let failure = line.failure {
            #expect(status == failure.status, "\(place)")
            #expect(stderr == [failure.stderr], "\(place)")
        } else {
            #expect(status == 0, "\(place): \(stderr)")
            #expect(stderr == [], "\(place)")
        }
        #expect(stdout == line.stdout, "\(place)")
        return true
    }

    /// What `swift build` promises: every program of the package in the folder the next line
    /// puts on PATH, built by this run.
    func checkSwiftBuild(_ environment: [String: String]) async throws {
        let shown = try await ProcessRunner.runOnThread(
            "/bin/sh", ["-c", "swift build --show-bin-path"], environment: environment,
            currentDirectory: packageRoot)
        #expect(shown.status == 0, "\(shown.stderr)")
        let folder = URL(fileURLWithPath: shown.stdout.trimmingCharacters(in: .newlines)).resolvingSymlinksInPath()
        #expect(
            folder.path == ProcessRunner.productsDirectory.resolvingSymlinksInPath().path,
            "swift build --show-bin-path is not the folder this swift test built into: run swift test in the default configuration"
        )
        for target in try Self.executableTargets() {
            #expect(
                FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent(target).path),
                "\(target) was not built")
        }
    }

    /// Every Markdown file under `Docs/` and `Benchmarks/` with a ```` ```sh ```` block is in
    /// `documents`, every document there has one, and every `notRunHere` line is in one: a block
    /// moved out of the README into a new document is run (or its `swift` lines checked), not
    /// silently dropped.
    @Test func everyDocumentWithShellLinesIsRun() throws {
        var found: [String] = []
        for folder in ["Docs", "Benchmarks"] {
            let directory = packageRoot.appendingPathComponent(folder)
            let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
            for file in files.sorted() where file.hasSuffix(".md") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                if text.split(separator: "\n", omittingEmptySubsequences: false).contains("```sh") {
                    found.append("\(folder)/\(file)")
                }
            }
        }
        #expect(Set(found) == Set(Self.documents.dropFirst()), "documents with ```sh blocks: \(found)")
        for document in Self.documents {
            #expect(try !Self.shellLines(of: document).isEmpty, "\(document) has no shell line")
        }
        let swiftLines = Set(try Self.shellLines().map(\.command).filter { $0.hasPrefix("swift ") })
        for command in Self.notRunHere.keys.sorted() where !swiftLines.contains(command) {
            Issue.record("notRunHere has `\(command)`, which no document has: the block that held it moved or went")
        }
    }

    /// README's contributing rule: no executable of the package shares a name with a command on
    /// the system `PATH` (as `bridge` did with iproute2's).
    @Test func noExecutableTargetIsNamedLikeASystemCommand() async throws {
        let home = try TestDirectory()
        defer { home.remove() }
        let targets = try Self.executableTargets()
        #expect(targets.contains("channelbridge") && targets.contains("extension-host"))
        for target in targets {
            let found = try await ProcessRunner.runOnThread(
                "/bin/sh", ["-c", "command -v \"$0\"", target],
                environment: Self.plainEnvironment(home: home.path, tmp: home.path))
            #expect(found.status != 0, "\(target) is also \(found.stdout)")
        }
    }

    static func contents(_ directory: String) -> [String] {
        (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? ["(cannot list \(directory))"]
    }

    /// Kills every process whose working directory is inside one of `directories`: a host a
    /// failed run left in the background.
    static func killProcesses(under directories: [String]) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/cwd"),
                directories.contains(where: { cwd == $0 || cwd.hasPrefix($0 + "/") })
            else { continue }
            kill(pid, SIGKILL)
        }
    }
}
