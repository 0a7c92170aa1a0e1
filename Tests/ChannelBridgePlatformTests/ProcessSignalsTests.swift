import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Glibc
import Testing

/// `ProcessSignals`: real signals sent to this process (SIGUSR1/SIGUSR2, which nothing else in the
/// test process uses) arrive on the stream, and a repeat goes to `onRepeat` instead.
@Suite(.serialized) struct ProcessSignalsTests {
    @Test func theFirstSignalIsYieldedAndARepeatGoesToOnRepeat() async throws {
        let repeats = Inbox<Int32>()
        let watch = ProcessSignals.watch([SIGUSR1], onRepeat: { repeats.put($0) })
        defer { watch.cancel() }
        try await withHangGuard(seconds: 10) { () async throws in
            await watch.waitUntilWatching()
            kill(getpid(), SIGUSR1)
            var signals = watch.signals.makeAsyncIterator()
            #expect(await signals.next() == SIGUSR1)
            kill(getpid(), SIGUSR1)
            #expect(await repeats.next() == SIGUSR1)
        }
    }

    @Test func withoutOnRepeatEverySignalIsYieldedAndCancelEndsTheStream() async throws {
        let watch = ProcessSignals.watch([SIGUSR2])
        try await withHangGuard(seconds: 10) { () async throws in
            await watch.waitUntilWatching()
            var signals = watch.signals.makeAsyncIterator()
            for _ in 0..<2 {
                kill(getpid(), SIGUSR2)
                #expect(await signals.next() == SIGUSR2)
            }
            watch.cancel()
            #expect(await signals.next() == nil)
        }
    }
}
