import ChannelBridgeTestSupport
import Foundation
import Testing

/// The benchmarks are a package of their own: the root's manifest declares none of their targets,
/// so `swift build` never builds them, and Benchmarks/Package.swift declares them all. Each manifest
/// is read with `swift package dump-package` in a scratch folder of the test's own, so that it
/// never waits for the lock the running `swift test` holds on .build.
@Suite struct BenchmarksPackageTests {
    static let benchmarkTargets: Set<String> = [
        "ChannelBridgeBench", "channelbridge-bench", "channelbridge-raw-bench", "channelbridge-rtt-driver",
        "BenchTests",
    ]

    func targets(of packagePath: String, scratch: String) async throws -> Set<String> {
        let outcome = try await ProcessRunner.runOnThread(
            "/usr/bin/env",
            ["swift", "package", "--package-path", packagePath, "--scratch-path", scratch, "dump-package"])
        try #require(outcome.status == 0, "stderr: \(outcome.stderr)")
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        return Set(targets.compactMap { $0["name"] as? String })
    }

    @Test func theRootDeclaresNoBenchmarkTargetAndBenchmarksDeclaresThemAll() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = try await targets(of: packageRoot.path, scratch: directory.path + "/root")
        #expect(root.contains("channelbridge") && root.contains("extension-host"))
        #expect(root.intersection(Self.benchmarkTargets) == [])
        let benchmarks = try await targets(
            of: packageRoot.appendingPathComponent("Benchmarks").path, scratch: directory.path + "/benchmarks")
        #expect(benchmarks == Self.benchmarkTargets)
    }
}
