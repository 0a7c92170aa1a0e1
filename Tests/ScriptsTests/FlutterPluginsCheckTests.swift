import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Scripts/flutter-plugins/check.sh` refuses, before it builds anything, a folder that does not
/// hold each plugin's file exactly once, and says which. (The check itself builds a package of its
/// own for minutes; `Docs/flutter.md` has its result.)
@Suite struct FlutterPluginsCheckTests {
    static let script = packageRoot.appendingPathComponent("Scripts/flutter-plugins/check.sh").path

    @Test func withoutAFolderItSaysHowToCallIt() async throws {
        let outcome = try await ProcessRunner.runOnThread(Self.script, [])
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == "usage: check.sh [--work DIR] FOLDER\n")
    }

    @Test func aFolderWithoutAPluginNamesTheFileItLacks() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try directory.write("path_provider_foundation/PathProviderPlugin.swift", "// a plugin\n")
        let outcome = try await ProcessRunner.runOnThread(Self.script, [directory.path])
        #expect(outcome.status == 2)
        #expect(outcome.stderr == "check.sh: no SharedPreferencesPlugin.swift under \(directory.path)\n")
    }

    @Test func aPluginFileTwiceIsRefusedWithBothPlaces() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try directory.write("shared_preferences_foundation/SharedPreferencesPlugin.swift", "// a plugin\n")
        try directory.write("a/PathProviderPlugin.swift", "// a plugin\n")
        try directory.write("b/PathProviderPlugin.swift", "// a plugin\n")
        let outcome = try await ProcessRunner.runOnThread(Self.script, [directory.path])
        #expect(outcome.status == 2)
        #expect(
            outcome.stderr
                == "check.sh: more than one PathProviderPlugin.swift under \(directory.path): "
                + "\(directory.path)/a/PathProviderPlugin.swift \(directory.path)/b/PathProviderPlugin.swift\n")
    }
}
