import ChannelBridgeTestSupport
import Foundation
import Testing

/// `bridge demo`, the first command a newcomer runs (README).
@Suite struct DemoCommandTests {
    @Test func demoRunsTheWholeFlowAndLeavesNothingBehind() throws {
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter { $0.hasPrefix("cb-demo-") }
        let outcome = try ProcessRunner.run("bridge", ["demo"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("ui ←   \"{\\\"text\\\":[\\\"Hello from the share sheet\\\",\\\"https://example.com/article?id=42\\\"],\\\"files\\\":[]}\""))
        #expect(lines.contains(#"app ←  {"map":[["key","lastShared"],["value","Hello from the share sheet"]]}"#))
        #expect(lines.contains(#"app ←  {"map":[["key","ShareKey"],["value",""]]}"#))
        #expect(lines.contains(#"host   completion record: {"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[]}"#))
        #expect(lines.contains("host   exited with status 0"))
        #expect(lines.last(where: { !$0.isEmpty }) == "demo complete")
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter { $0.hasPrefix("cb-demo-") }
        #expect(after.subtracting(before).isEmpty)
    }

    @Test func demoTakesNoArguments() throws {
        let outcome = try ProcessRunner.run("bridge", ["demo", "extra"])
        #expect(outcome.status == 64)
    }
}
