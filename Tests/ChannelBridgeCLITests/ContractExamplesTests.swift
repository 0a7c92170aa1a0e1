import ChannelBridgeTestSupport
import Foundation
import Testing

/// Examples/Contracts: the five seed scenarios' transcripts, recorded from real sessions, each
/// verified against an `extension-host` that verify starts with the transcript's provider states.
@Suite struct ContractExamplesTests {
    static let directory = packageRoot.appendingPathComponent("Examples/Contracts")
    static let expected: [(file: String, interactions: Int)] = [
        ("action-extension-observed.json", 5), ("list-import-at-launch.json", 4), ("no-ui-action-cancel.json", 3),
        ("open-url.json", 3), ("share-text-url-file.json", 5),
    ]

    @Test func theFiveSeedContractsAreThere() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
            $0.hasSuffix(".json")
        }.sorted()
        #expect(files == Self.expected.map(\.file))
    }

    @Test(arguments: expected.map(\.file))
    func eachSeedContractVerifiesAgainstTheHost(file: String) async throws {
        try await withHangGuard(seconds: 60) {
            let count = Self.expected.first { $0.file == file }!.interactions
            let path = Self.directory.appendingPathComponent(file).path
            // With CHANNELBRIDGE_TEST_ISOLATION=session, the host verify starts isolates too.
            let isolation = HostProcess.isolationForced ? ["--host-arg", "--isolation", "--host-arg", "session"] : []
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge",
                [
                    "verify", "--transcript", path, "--start-host",
                    "--event-timeout", "30",
                ] + isolation)
            #expect(outcome.stdout == "verified: \(count) interactions\n")
            #expect(outcome.stderr == "")
            #expect(outcome.status == 0)
        }
    }
}
