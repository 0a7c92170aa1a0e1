import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Scripts/pigeon/test-plugin/check.sh` refuses, before it builds anything, a call without a
/// flutter/packages clone. (The check itself builds a package of its own for minutes;
/// `Docs/flutter.md` has its result.)
@Suite struct PigeonTestPluginCheckTests {
    static let script = packageRoot.appendingPathComponent("Scripts/pigeon/test-plugin/check.sh").path

    @Test func withoutACheckoutItSaysHowToCallIt() async throws {
        let outcome = try await ProcessRunner.runOnThread(Self.script, ["26.0.0"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == "usage: check.sh --checkout FLUTTER_PACKAGES [--work DIR] [VERSION ...]\n")
    }

    @Test func aFolderThatIsNotAGitCloneIsRefused() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let outcome = try await ProcessRunner.runOnThread(Self.script, ["--checkout", directory.path])
        #expect(outcome.status == 2)
        #expect(outcome.stderr == "check.sh: \(directory.path) is not a git clone\n")
    }
}
