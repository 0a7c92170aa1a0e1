import ChannelBridgeTestSupport
import Glibc
import Testing

/// A process whose connection has its reader state (`ReaderState`) touched by a thread that did
/// not deliver: a debug build stops it, naming the place of the access; a release build checks
/// nothing. The child is `channelbridge-test-peer confinement-check`, a real process, so the
/// assertion is seen as it stops one.
@Suite struct ReaderConfinementCheckTests {
    @Test func aThreadThatDidNotDeliverStopsADebugBuild() async throws {
        let outcome = try await withHangGuard {
            try await ProcessRunner.runOnThread("channelbridge-test-peer", ["confinement-check", "-"])
        }
        #if DEBUG
        // Swift's failed assertion traps (`ud2`): the child ends by SIGILL.
        #expect(outcome.status == SIGILL, "stderr: \(outcome.stderr)")
        #expect(outcome.stdout == "")
        let first = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        #expect(
            first.wholeMatch(
                of:
                    /ChannelBridgeMessenger\/MessengerConnection\.swift:\d+: Assertion failed: thread-confined state touched from a thread that does not hold it/
            ) != nil, "stderr: \(outcome.stderr)")
        #else
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "unchecked\n")
        #endif
    }
}
