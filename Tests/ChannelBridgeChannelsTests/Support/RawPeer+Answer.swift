import ChannelBridgeMessenger
import ChannelBridgeTesting
import Testing

extension InMemoryMessenger.RawPeer {
    /// Replies to the `count`th REQUEST this peer received, once it has, with `result`; records an
    /// issue instead when the connection ended (or the wait was cancelled) before it arrived.
    func answer(request count: Int, with result: Frame.Reply) async {
        let frames = await waitForFrames { frames in
            frames.filter { if case .request = $0 { true } else { false } }.count >= count
        }
        let ids = frames.compactMap { frame -> UInt32? in if case .request(let id, _, _) = frame { id } else { nil } }
        guard ids.count >= count else {
            Issue.record("request \(count) never arrived: \(ids.count) did before the wait ended")
            return
        }
        send(.reply(id: ids[count - 1], result: result))
    }
}
