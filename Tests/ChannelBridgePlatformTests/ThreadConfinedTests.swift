import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Testing

/// `ThreadConfined`: the thread that claimed the box last holds it (`isHeldHere`, what `withValue`
/// asserts in a debug build); a release build checks nothing. That the assertion stops a process
/// is `ReaderConfinementCheckTests`' (ChannelBridgeSocketTests), with a real child process.
@Suite struct ThreadConfinedTests {
    /// A box that threads share, as the connection that owns one is shared.
    final class Shared: @unchecked Sendable {
        var box = ThreadConfined(0)
    }

    #if DEBUG
    static let checks = true
    #else
    static let checks = false
    #endif

    @Test func aBoxNobodyClaimedIsHeldEverywhere() async {
        let shared = Shared()
        let (first, second) = await onTwoThreads({ shared.box.isHeldHere }, then: { shared.box.isHeldHere })
        #expect(first && second)
    }

    @Test func theThreadThatClaimedLastHoldsIt() async {
        let shared = Shared()
        let (claimer, other) = await onTwoThreads(
            {
                shared.box.claim()
                return shared.box.isHeldHere
            }, then: { shared.box.isHeldHere })
        #expect(claimer)
        #expect(other == !Self.checks)
    }

    /// A claim hands the box over: a thread that did not hold it does after claiming it.
    @Test func aClaimHandsTheBoxOver() async {
        let shared = Shared()
        let (_, second) = await onTwoThreads(
            { shared.box.claim() },
            then: {
                let before = shared.box.isHeldHere
                shared.box.claim()
                return (before, shared.box.isHeldHere)
            })
        #expect(second.0 == !Self.checks)
        #expect(second.1)
    }

    @Test func theValueIsTheOneEveryHolderSees() async {
        let shared = Shared()
        let (seen, _) = await onTwoThreads(
            {
                shared.box.claim()
                shared.box.withValue { $0 += 41 }
                return shared.box.withValue { value in
                    value += 1
                    return value
                }
            }, then: {})
        #expect(seen == 42)
    }
}
