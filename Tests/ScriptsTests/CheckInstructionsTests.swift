import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Scripts/check-instructions`, given figures instead of measuring them: a figure over its
/// threshold by more than the tolerance fails the run and is named; figures within it pass.
@Suite struct CheckInstructionsTests {
    static let script = packageRoot.appendingPathComponent("Scripts/check-instructions").path

    static func figures(client: Int, server: Int) -> String {
        #"{"client_instructions_per_call": \#(client), "server_instructions_per_call": \#(server)}"#
    }

    @Test func aFigureOverItsThresholdFailsTheRunAndIsNamed() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try directory.write(
            "thresholds.json",
            """
            {"tolerance_percent": {"server": 3, "client": 5},
             "echo": {"client": 1000, "server": 2000}, "host": {"client": 1000, "server": 4000}}
            """)
        let thresholds = directory.path + "/thresholds.json"

        let within = try await ProcessRunner.runOnThread(
            Self.script,
            [
                "--thresholds", thresholds, "--measured",
                Self.figures(client: 1_050, server: 2_060), Self.figures(client: 990, server: 4_000),
            ])
        #expect(within.status == 0)
        #expect(
            within.stdout == """
                echo client: 1050 instructions per call (threshold 1000): ok
                echo server: 2060 instructions per call (threshold 2000): ok
                host client: 990 instructions per call (threshold 1000): ok
                host server: 4000 instructions per call (threshold 4000): ok

                """)

        let over = try await ProcessRunner.runOnThread(
            Self.script,
            [
                "--thresholds", thresholds, "--measured",
                Self.figures(client: 1_000, server: 2_061), Self.figures(client: 900, server: 4_000),
            ])
        #expect(over.status == 1)
        #expect(
            over.stdout == """
                echo client: 1000 instructions per call (threshold 1000): ok
                echo server: 2061 instructions per call (threshold 2000): OVER (more than 3 % above 2000)
                host client: 900 instructions per call (threshold 1000): ok, 10.0 % under: the threshold may be lowered
                host server: 4000 instructions per call (threshold 4000): ok

                """)
        #expect(over.stderr.contains("a call costs more instructions than its threshold allows"))
    }
}
