import ChannelBridgeTestSupport
import Foundation
import Testing

/// No descriptor outlives its session, counted over the whole process: in a child process of its
/// own (this one runs other suites at the same time), ten rounds of sessions that answer calls,
/// are closed by either side with a call pending, send a malformed frame, or vanish.
@Suite struct DescriptorLeakTests {
    @Test func sessionsThatEndEveryWayLeaveNoDescriptorBehind() async throws {
        try await TestDirectory.withPath { directory in
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge-test-peer", ["fd-check", directory + "/fd.sock"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let counts = outcome.stdout.split(separator: " ").dropFirst().compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            #expect(outcome.stdout.hasPrefix("fds "))
            // More after than before is a leak; fewer is a straggler of the warm-up round closing late.
            #expect(counts.count == 2 && counts[1] <= counts[0], "descriptors before and after: \(outcome.stdout)")
        }
    }
}
