import ChannelBridgeChannels
import ChannelBridgePlatform

/// One worker process of an isolated host, as the host sees it: its pid, its hand-off socket, its
/// control channel, and the session it serves once it has been given one.
final class WorkerProcess: Sendable {
    struct State {
        var control: MethodChannel?
        /// The session's number and the listener's call for its end, once it has been handed one.
        var session: Int?
        var ended: (@Sendable () -> Void)?
        /// Raised once the reply to the call that ended the request through this worker is queued.
        var endingReply: OneShotSignal?
        /// The host killed it (shutdown deadline): its end is not a crash.
        var killedByHost = false
    }

    let pid: Int32
    /// The host's end of the hand-off socket: the client's descriptor goes out here, a crash
    /// report comes back.
    let handOff: Int32
    let state = LockedValue(State())

    init(pid: Int32, handOff: Int32) {
        self.pid = pid
        self.handOff = handOff
    }

    var session: Int? { state.withLock { $0.session } }
}
