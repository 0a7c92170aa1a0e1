import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// A payload's readable range set past the end of its storage stops the process, with the
/// precondition's message first on stderr: the readers (`withUnsafeHeadBytes`, `array`) rely on
/// the range lying within the storage. The child is `channelbridge-test-peer payload-range-check
/// -`, a real process, so the check is seen as it stops one.
@Suite struct PayloadRangeCheckTests {
    @Test func aRangePastTheStorageStopsTheProcess() async throws {
        // Without Swift's backtracer, whose symbolication of the stopped child would load the
        // machine for a second or two while the rest of the suite runs.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let outcome = try await withHangGuard { [environment] in
            try await ProcessRunner.runOnThread(
                "channelbridge-test-peer", ["payload-range-check", "-"], environment: environment)
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
