@testable import ChannelBridgeHost
import Testing

/// How many idle workers an isolated host keeps (`WorkerIdlePolicy`, Protocol/extension-host.md
/// §1.8): doubled on each shortage up to the maximum, halved after each quiet `shrinkAfter`, never
/// below the minimum.
@Suite struct WorkerIdlePolicyTests {
    @Test func shortagesDoubleTheTargetUpToTheMaximum() {
        let start = ContinuousClock.now
        var policy = WorkerIdlePolicy(now: start)
        #expect(policy.target == 2)
        var targets: [Int] = []
        for step in 1...4 {
            policy.shortage(at: start + .milliseconds(step))
            targets.append(policy.target)
        }
        #expect(targets == [4, 8, 8, 8])
    }

    @Test func quietPeriodsHalveItBackToTheMinimum() {
        let start = ContinuousClock.now
        var policy = WorkerIdlePolicy(now: start)
        policy.shortage(at: start)
        policy.shortage(at: start)
        #expect(policy.target == 8)
        let quiet = WorkerIdlePolicy.shrinkAfter
        policy.shrinkIfQuiet(at: start + quiet - .milliseconds(1))
        #expect(policy.target == 8)
        policy.shrinkIfQuiet(at: start + quiet)
        #expect(policy.target == 4)
        // The next halving is a whole quiet period after the last one.
        policy.shrinkIfQuiet(at: start + quiet + quiet - .milliseconds(1))
        #expect(policy.target == 4)
        policy.shrinkIfQuiet(at: start + quiet * 2)
        #expect(policy.target == 2)
        policy.shrinkIfQuiet(at: start + quiet * 10)
        #expect(policy.target == 2)
    }

    @Test func aShortageRestartsTheQuietPeriod() {
        let start = ContinuousClock.now
        var policy = WorkerIdlePolicy(now: start)
        policy.shortage(at: start)
        policy.shortage(at: start + WorkerIdlePolicy.shrinkAfter - .milliseconds(1))
        policy.shrinkIfQuiet(at: start + WorkerIdlePolicy.shrinkAfter)
        #expect(policy.target == 8)
    }
}
