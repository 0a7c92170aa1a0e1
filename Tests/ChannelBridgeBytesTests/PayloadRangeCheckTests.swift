import ChannelBridgeTestSupport
import Glibc
import Testing

/// A payload's readable range set past the end of its storage stops the process, with the
/// precondition's message first on stderr: the readers (`withUnsafeHeadBytes`, `array`) rely on
/// the range lying within the storage. The child is `channelbridge-test-peer payload-range-check
/// -`, a real process, so the check is seen as it stops one.
@Suite struct PayloadRangeCheckTests {
    @Test func aRangePastTheStorageStopsTheProcess() async throws {
        let outcome = try await withHangGuard {
            try await ProcessRunner.runOnThread("channelbridge-test-peer", ["payload-range-check", "-"])
        }
        // Swift's failed precondition traps (`ud2`): the child ends by SIGILL.
        #expect(outcome.status == SIGILL, "stderr: \(outcome.stderr)")
        #expect(outcome.stdout == "")
        let first = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let failure = try Regex(
            #"ChannelBridgeBytes/Payload\.swift:\d+: "#
                + #"Precondition failed: a payload's range lies within its storage"#)
        #expect(first.wholeMatch(of: failure) != nil, "stderr: \(outcome.stderr)")
    }
}
