import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Testing

/// The runtime's current task, which `CallScope` compares to know whose calls it covers.
@Suite struct CurrentTaskTests {
    @Test func aTaskKeepsItsAddressAcrossSuspensions() async {
        let mine = CurrentTask.address
        #expect(mine != 0)
        await Task.yield()
        #expect(CurrentTask.address == mine)
        await onThread { _ = 0 }
        #expect(CurrentTask.address == mine)
    }

    @Test func anotherTaskHasItsOwnAndAPlainThreadHasNone() async {
        let mine = CurrentTask.address
        let child = await Task { CurrentTask.address }.value
        let detached = await Task.detached { CurrentTask.address }.value
        #expect(child != 0 && detached != 0)
        #expect(child != mine && detached != mine)
        #expect(await onThread { CurrentTask.address } == 0)
    }
}
