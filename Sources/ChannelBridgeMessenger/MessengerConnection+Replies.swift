import ChannelBridgeBytes
import ChannelBridgePlatform

/// The REPLYs the peer sends to this side's calls: resuming the call that waits, or handing a
/// driven call its reply on the reader thread.
extension MessengerConnection {
    /// `tail`: the last part of a split payload (its one segment), after `result`'s bytes.
    /// `inBuffer`: a status-0 payload left in the receive buffer, instead of `result`'s bytes.
    func handleReply(
        id: UInt32, result: Frame.Reply, tail: [UInt8]? = nil,
        inBuffer: (buffer: [UInt8], payload: Range<Int>)? = nil
    ) -> Delivery {
        // A REPLY for an id not in flight is ignored: it can cross this side's CANCEL.
        var unopened: UnopenedSession?
        var drained = false
        // The buffer the call lent, taken out of its entry under the lock so that this is its
        // only reference and the reply is written into it without a copy.
        var lent: [UInt8] = []
        let found = state.withLock { state -> ConnectionState.PendingCall? in
            if let closed = Self.unopened(state) {
                unopened = closed
                return nil
            }
            guard var call = state.pending.remove(id) else { return nil }
            swap(&lent, &call.replyBuffer)
            drained = state.isDrained
            return call
        }
        if let unopened { return deliver(.reply, in: unopened) }
        guard let call = found else { return .delivered }
        guard let continuation = call.continuation else {
            // A driven call: its caller is this thread, reading until it finds this.
            // Swapped in, not assigned from a capture: the closure would copy the outcome, a
            // retain and a release of the reply's buffer.
            var outcome = Optional(
                Self.outcome(result, tail: tail, inBuffer: inBuffer, lent: consume lent, channel: call.channel))
            reader.withValue { swap(&$0.drivenReply, &outcome) }
            if drained { finishDrained() }
            return .delivered
        }
        // Resumed case by case rather than through a `Result`: building one and resuming with it
        // costs more on every call resumed through a continuation (`channelbridge-bench pipeline`).
        if let (buffer, payload) = inBuffer {
            continuation.resume(returning: Self.reply(buffer[payload], into: consume lent))
        } else {
            switch result {
            case .bytes(let bytes):
                continuation.resume(returning: Self.received(bytes, tail: tail))
            case .null:
                continuation.resume(returning: nil)
            case .failure(let diagnostic):
                continuation.resume(throwing: MessengerError(.handlerFailed, diagnostic, channel: call.channel))
            }
        }
        if drained { finishDrained() }
        return .delivered
    }

    /// A driven call's outcome from its REPLY (see `handleReply`).
    private static func outcome(
        _ result: Frame.Reply, tail: [UInt8]?, inBuffer: (buffer: [UInt8], payload: Range<Int>)?,
        lent: consuming [UInt8], channel: String
    ) -> Result<Payload?, any Error> {
        if let (buffer, payload) = inBuffer { return .success(reply(buffer[payload], into: lent)) }
        switch result {
        case .bytes(let bytes): return .success(received(bytes, tail: tail))
        case .null: return .success(nil)
        case .failure(let diagnostic): return .failure(MessengerError(.handlerFailed, diagnostic, channel: channel))
        }
    }

    /// A status-0 reply's payload, read from the receive buffer into the buffer its call lent
    /// (grown when it is too small, up to `lentReplyBufferLimit`), or into an array of its own.
    private static func reply(_ payload: ArraySlice<UInt8>, into lent: consuming [UInt8]) -> Payload {
        let count = payload.count
        guard !lent.isEmpty, count <= lentReplyBufferLimit else { return Payload(Array(payload)) }
        var buffer = lent
        if buffer.count < count {
            // Its bytes are only ever read as far as they were written.
            buffer = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }
        if count > 0 {
            buffer.withUnsafeMutableBytes { target in
                payload.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            }
        }
        return Payload(lending: buffer, count: count)
    }

    /// A status-0 reply's payload in an array of its own, with the last part of a split payload
    /// as its one segment.
    @inline(__always)
    private static func received(_ bytes: [UInt8], tail: [UInt8]?) -> Payload {
        guard let tail else { return Payload(bytes) }
        return Payload(bytes, segments: [tail])
    }
}
