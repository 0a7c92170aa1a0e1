import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// `channelbridge stress connect` run as a real process against a real host: every connection gets
/// the host's HELLO, and the host's children and descriptors are counted before and after. No
/// timing is asserted (the machine decides those); only counts whose right value does not depend
/// on it.
@Suite struct StressConnectTests {
    static func figures(_ outcome: StressProcess.Outcome) throws -> [String: Double] {
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        return try #require(object).compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    /// An isolated host: its workers come back to what they were (the idle pool, grown by the
    /// loop, shrinks back), none is left a zombie, and the host's descriptors do not grow.
    @Test func anIsolatedHostEndsTheLoopWithItsWorkersAndDescriptorsAsBefore() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 90) {
            let host = try HostProcess(
                ["--socket", directory.socket, "--data-dir", directory.data, "--isolation", "session"],
                product: "isolation-test-host")
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            let outcome = try await StressProcess.run(
                "channelbridge", ["stress", "connect", "--socket", directory.socket, "--connections", "30", "--json"])
            #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
            let figures = try Self.figures(outcome)
            #expect(figures["connections"] == 30)
            #expect(figures["refused"] == 0 && figures["unanswered"] == 0, "\(figures)")
            #expect((figures["p50_ms"] ?? 0) > 0 && (figures["max_ms"] ?? 0) >= (figures["p99_ms"] ?? .infinity))
            let before = try #require(figures["workers_before"])
            #expect(before >= 2, "\(figures)")
            #expect((figures["workers_peak"] ?? 0) >= before, "\(figures)")
            #expect((figures["workers_after"] ?? .infinity) <= before, "\(figures)")
            #expect(figures["zombies_after"] == 0, "\(figures)")
            #expect(
                (figures["descriptors_after"] ?? .infinity) <= (figures["descriptors_before"] ?? 0), "\(figures)")
            host.send(signal: SIGTERM)
            #expect(await host.waitForExit().status == 143)
        }
    }

    /// A host serving its sessions in process has no children at all.
    @Test func aHostWithoutIsolationHasNoChildren() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try HostProcess(
                ["--isolation", "none", "--socket", directory.socket, "--data-dir", directory.data])
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            let outcome = try await StressProcess.run(
                "channelbridge", ["stress", "connect", "--socket", directory.socket, "--connections", "50", "--json"])
            #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
            let figures = try Self.figures(outcome)
            #expect(figures["connections"] == 50 && figures["refused"] == 0 && figures["unanswered"] == 0)
            for name in ["workers_before", "workers_peak", "workers_after", "zombies_after"] {
                #expect(figures[name] == 0, "\(name): \(figures)")
            }
            #expect(figures["descriptors_after"] == figures["descriptors_before"], "\(figures)")
            host.send(signal: SIGTERM)
            #expect(await host.waitForExit().status == 143)
        }
    }

    @Test func withoutASocketOrAHostItSaysWhatIsWrong() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let usage = try await StressProcess.run("channelbridge", ["stress", "connect"])
        #expect(usage.status == 64)
        #expect(
            usage.stderr
                == "channelbridge stress: connect needs --socket PATH\nRun 'channelbridge stress --help' for usage.\n"
        )
        let nobody = try await StressProcess.run("channelbridge", ["stress", "connect", "--socket", directory.socket])
        #expect(nobody.status == 69)
        #expect(
            nobody.stderr == "channelbridge stress connect: connect \(directory.socket): No such file or directory\n")
        #expect(nobody.stdout == "")
    }
}
