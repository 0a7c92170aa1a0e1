import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The frame deadline (wire protocol §4.10, rule 9; `SocketConnection.Options.frameTimeout`).
///
/// When a read leaves part of a frame buffered, the reader does not block in `read` for the rest:
/// it waits in `poll` for at most the time the frame has left, and adds the time waited to the
/// frame's account (`FrameClock`). A peer whose frame runs out of time is sent GOODBYE
/// `frameTimeout` and the session ends, which frees its connection slot. Reads that complete
/// their frames, the common case, take no clock reading and make no `poll`.
extension SocketTransport {
    /// Whether the reader must wait for the peer's unfinished frame under its deadline rather
    /// than block in `read`. Reader thread only.
    @inline(__always)
    func timesFrame(of connection: MessengerConnection) -> Bool {
        frameTimeout != nil && connection.partialFrameByteCount > 0 && !reader.withValue { $0.frameClock.expired }
    }

    /// Waits until the socket has bytes (or an end) for the unfinished frame, or its deadline
    /// passes; then the peer has been sent GOODBYE `frameTimeout`, and the read that follows
    /// returns once the socket is shut down. Reader thread only, input not held back.
    func awaitRestOfFrame(_ connection: MessengerConnection) {
        guard let timeout = frameTimeout else { return }
        while true {
            let bytes = connection.partialFrameByteCount
            let frame = connection.partialFrameNumber
            let left = reader.withValue {
                $0.frameClock.secondsLeft(frame: frame, bytes: bytes, timeout: timeout, minimumRate: frameMinimumRate)
            }
            guard left > 0 else { break }
            let start = Syscalls.monotonicSeconds()
            let ready = Syscalls.poll(fd, forInput: true, milliseconds: Int32(min(left * 1000, 3_600_000).rounded(.up)))
            let waited = Syscalls.monotonicSeconds() - start
            reader.withValue { $0.frameClock.add(waited: waited) }
            if ready.isReady { return }
        }
        let waited = reader.withValue { clock in
            clock.frameClock.expired = true
            return clock.frameClock.waited
        }
        let bytes = connection.partialFrameByteCount
        connection.frameTimedOut(
            "a frame was not finished in time: \(bytes) bytes of it arrived in "
                + "\(Self.seconds(waited)) s of waiting (deadline \(Self.seconds(timeout)) s "
                + "+ 1 s per \(frameMinimumRateText) received)")
    }

    private var frameMinimumRateText: String {
        let rate = Int(frameMinimumRate)
        return rate % (1 << 20) == 0 ? "\(rate >> 20) MiB" : rate % 1024 == 0 ? "\(rate >> 10) KiB" : "\(rate) bytes"
    }

    private static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}
