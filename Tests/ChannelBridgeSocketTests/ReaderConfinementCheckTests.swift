import ChannelBridgeTestSupport
import Glibc
import Testing

/// A process whose reader-thread state is touched by a thread that does not hold it: a debug
/// build stops it, naming the place of the access; a release build checks nothing. The child is
/// `channelbridge-test-peer confinement-check WHAT`, a real process, so the assertion is seen as
/// it stops one. WHAT names the state: a connection's `ReaderState` (`-`), a socket transport's
/// `SocketReaderState` (`transport`), a `ReaderExecutor`'s `ReaderState` (`executor`).
@Suite struct ReaderConfinementCheckTests {
    @Test func aThreadThatDidNotDeliverStopsADebugBuild() async throws {
        try await expectStop(of: "-", at: #"ChannelBridgeMessenger/MessengerConnection\.swift"#)
    }

    /// The transport's reader state after its reader ran on the main thread, touched by another
    /// thread that sends what the reader left queued (`flushDeferred`).
    @Test func aThreadThatIsNotTheTransportsReaderStopsADebugBuild() async throws {
        try await expectStop(of: "transport", at: #"ChannelBridgeSocket/SocketTransport\+Writing\.swift"#)
    }

    /// The executor's reader state after the main thread attached as its reader, touched by
    /// another thread that asks whether the reader may block (`willBlock`).
    @Test func aThreadThatIsNotTheExecutorsReaderStopsADebugBuild() async throws {
        try await expectStop(of: "executor", at: #"ChannelBridgeSocket/ReaderExecutor\.swift"#)
    }

    /// Runs the child for `what`; in a debug build, expects it stopped by the assertion made in
    /// the file `place` matches (a pattern for the access's `#fileID`), the assertion's line first
    /// on stderr.
    private func expectStop(of what: String, at place: String, function: String = #function) async throws {
        let outcome = try await withHangGuard(function: function) {
            try await ProcessRunner.runOnThread("channelbridge-test-peer", ["confinement-check", what])
        }
        #if DEBUG
        // Swift's failed assertion traps (`ud2`): the child ends by SIGILL.
        #expect(outcome.status == SIGILL, "stderr: \(outcome.stderr)")
        #expect(outcome.stdout == "")
        let first = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let assertion = try Regex(
            place + #":\d+: Assertion failed: thread-confined state touched from a thread that does not hold it"#)
        #expect(first.wholeMatch(of: assertion) != nil, "stderr: \(outcome.stderr)")
        #else
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "unchecked\n")
        #endif
    }
}
