import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Scripts/format --check`, which `.ci/run` runs, on a repository of its own with the package's
/// `.swift-format`: an unformatted file fails the run and is named; the same file formatted by
/// `Scripts/format` passes; files whose bytes are fixed elsewhere are left alone.
@Suite struct FormatCheckTests {
    @Test func anUnformattedFileFailsTheCheckUntilFormatted() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = packageRoot.path
        try directory.write("Scripts/format", try String(contentsOfFile: root + "/Scripts/format", encoding: .utf8))
        try directory.write(".swift-format", try String(contentsOfFile: root + "/.swift-format", encoding: .utf8))
        let unformatted = "let  value=[1,2 ,3]\n"
        try directory.write("Sources/A/A.swift", unformatted)
        try directory.write("Sources/A/Generated.g.swift", unformatted)
        let git = "/usr/bin/env"
        for arguments in [["git", "init", "-q"], ["git", "add", "."]] {
            let outcome = try await ProcessRunner.runOnThread(
                git, arguments, currentDirectory: URL(fileURLWithPath: directory.path))
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        }
        let script = directory.path + "/Scripts/format"
        #expect(try await ProcessRunner.runOnThread("/bin/chmod", ["+x", script]).status == 0)

        let failing = try await ProcessRunner.runOnThread(script, ["--check"])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("Sources/A/A.swift"))
        #expect(!failing.stdout.contains("Generated.g.swift"))
        #expect(failing.stderr.contains("run Scripts/format to fix"))

        #expect(try await ProcessRunner.runOnThread(script, []).status == 0)
        let formatted = try String(contentsOfFile: directory.path + "/Sources/A/A.swift", encoding: .utf8)
        #expect(formatted == "let value = [1, 2, 3]\n")
        let generated = try String(contentsOfFile: directory.path + "/Sources/A/Generated.g.swift", encoding: .utf8)
        #expect(generated == unformatted)
        let passing = try await ProcessRunner.runOnThread(script, ["--check"])
        #expect(passing.status == 0, "\(passing.stdout)\(passing.stderr)")
        #expect(passing.stdout == "Scripts/format: 1 files formatted\n")
    }
}
