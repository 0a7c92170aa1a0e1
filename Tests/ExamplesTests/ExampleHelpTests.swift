import ChannelBridgeTestSupport
import Foundation
import Testing

/// Every example program answers `--help` with its usage (exit 0, nothing else done), and a
/// stray option with one line pointing there.
@Suite struct ExampleHelpTests {
    static let examples = [
        "containing-app-example", "event-stream-example", "custom-plugin-example",
        "greeter-host-example", "flutter-style-plugin-example", "pigeon-api-example", "pigeon-host-example",
    ]

    @Test(arguments: examples) func helpPrintsTheUsage(_ example: String) async throws {
        let tmp = try TestDirectory()
        defer { tmp.remove() }
        for flag in ["--help", "-h"] {
            let outcome = try await ProcessRunner.runOnThread(
                example, [flag], environment: ExamplesTests.environment(tmp: tmp.path))
            #expect(outcome.status == 0, "\(example) \(flag)")
            #expect(outcome.stderr == "", "\(example) \(flag)")
            #expect(outcome.stdout.hasPrefix("usage: \(example) "), "\(example) \(flag): \(outcome.stdout)")
            #expect(ExamplesTests.contents(tmp.path) == [], "\(example) \(flag) did more than print its usage")
        }
    }

    @Test func aStrayOptionIsOneLine() async throws {
        let greeter = try await ProcessRunner.runOnThread("custom-plugin-example", ["--name"])
        #expect(greeter.status == 64)
        #expect(greeter.stdout == "")
        #expect(greeter.stderr == "custom-plugin-example: unknown option --name; run 'custom-plugin-example --help'\n")
        let events = try await ProcessRunner.runOnThread("event-stream-example", ["three"])
        #expect(events.status == 64)
        #expect(
            events.stderr
                == "event-stream-example: COUNT must be a whole number, not 'three'; run 'event-stream-example --help'\n"
        )
    }
}
