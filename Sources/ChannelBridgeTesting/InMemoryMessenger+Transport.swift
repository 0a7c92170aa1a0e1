import ChannelBridgeMessenger
import ChannelBridgePlatform

extension InMemoryMessenger {
    /// Where an in-memory transport delivers: the other side's `receive` and `receiveEnd`.
    struct Sink: Sendable {
        var deliver: @Sendable ([UInt8]) -> Void
        var end: @Sendable () -> Void
    }

    /// One direction of an in-memory pipe. Bytes are delivered on the thread that wrote them, in
    /// write order; a write made while a delivery is under way (for example a reply written by a
    /// handler the delivery started, on the same thread) is queued and delivered by the loop that
    /// is already running, so deliveries never overlap or nest. Writes made before `connect(to:)`
    /// (the connection's HELLO) wait in the queue.
    final class Transport: FrameTransport {
        private struct State {
            var queue: [[UInt8]] = []
            var delivering = false
            var closing = false
            var sink: Sink?
        }

        private let state = LockedValue(State())

        func connect(to sink: Sink) {
            let deliver = state.withLock { state -> Bool in
                state.sink = sink
                guard !state.delivering, !state.queue.isEmpty || state.closing else { return false }
                state.delivering = true
                return true
            }
            if deliver { drain() }
        }

        func write(
            frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
            _ encode: (UnsafeMutableRawBufferPointer) -> Void
        ) {
            let frame = Self.frameBytes(length: length, followedBy: payloads, encode)
            enqueue { $0.append(frame) }
        }

        func close() {
            let deliver = state.withLock { state -> Bool in
                state.closing = true
                guard !state.delivering, state.sink != nil else { return false }
                state.delivering = true
                return true
            }
            if deliver { drain() }
        }

        private func enqueue(_ add: (inout [[UInt8]]) -> Void) {
            let deliver = state.withLock { state -> Bool in
                guard !state.closing else { return false }
                add(&state.queue)
                guard !state.delivering, state.sink != nil else { return false }
                state.delivering = true
                return true
            }
            if deliver { drain() }
        }

        /// Runs by the one thread that set `delivering`.
        private func drain() {
            while true {
                enum Step { case deliver([[UInt8]], Sink), end(Sink), stop }
                let step = state.withLock { state -> Step in
                    guard let sink = state.sink else {
                        state.delivering = false
                        return .stop
                    }
                    if !state.queue.isEmpty {
                        defer { state.queue = [] }
                        return .deliver(state.queue, sink)
                    }
                    state.delivering = false
                    guard state.closing else { return .stop }
                    state.sink = nil
                    return .end(sink)
                }
                switch step {
                case .deliver(let chunks, let sink):
                    for chunk in chunks { sink.deliver(chunk) }
                case .end(let sink):
                    sink.end()
                    return
                case .stop:
                    return
                }
            }
        }
    }
}
