import ChannelBridgeBytes
/// What a `MessengerConnection` keeps for the thread that delivers its received bytes (a socket's
/// reader thread), with no lock: it lives in a `ThreadConfined` box (`MessengerConnection.reader`),
/// which each delivery claims (`receive`, `resumeHeldInput`, `deliveriesEnded`) and which a debug
/// build checks at every access. Deliveries never overlap (`FrameTransport`'s rules), so one thread
/// at a time touches it: the one inside a delivery, or the one that delivered last (the reader
/// asks `inputDemand` and `partialFrameByteCount` between reads, and a driven call reads its reply
/// there after delivering it).
struct ReaderState {
    /// The buffer handlers lent it write their replies into, kept with its capacity. Bounded: a
    /// reply of `separatePayloadThreshold` (64 KiB) or more takes the buffer along and the next
    /// starts a new one, so what is kept is under 128 KiB.
    var replyScratch: [UInt8] = []
    /// Set while the frame being delivered is the last of the bytes received so far, so that a
    /// reply written at once may be sent at once (`FrameTransport.write`'s `flush`). Read in
    /// `handleRequest`, never by a handler's task on another thread.
    var deliveringLastFrame = false
    /// Bytes of a frame begun and not complete when the received bytes were last decoded (0:
    /// none), and a number that changes whenever such a frame is a new one: what the transport
    /// times against the frame deadline (wire protocol §4.10, rule 9).
    var partialFrameBytes = 0
    var partialFrameSerial = 0
    /// Budget bytes charged for the REQUEST whose frame has begun, or is being delivered, before
    /// its body was read (wire protocol §4.10, rule 8; 0: none).
    var prepaidCharge = 0
    /// Budget bytes a begun REQUEST waits for with its body unread, the reading stopped (0: none).
    var chargeAwaitedAtHeader = 0
    /// The channel whose requests were last answered in place, with its handler and the epoch of
    /// `answerRules` it was looked up in: `handleRequest`'s way round the state lock. Bound: one
    /// handler, kept after it is removed until the next request answered in place or the end of
    /// deliveries (`deliveriesEnded`).
    var inPlaceRoute: MessengerConnection.InPlaceRoute?
    /// The reply of the call the reader thread drives (`startDrivenRequest`), once delivered: a
    /// driven call is made, and its reply delivered (`handleReply`), only on the reader thread
    /// (`FrameTransport.canDriveReader`).
    var drivenReply: Result<Payload?, any Error>?
    /// Calls that drove the reader (`drivenWaitCount`).
    var drivenWaits = 0

    /// `prepaidCharge`, taken: 0 is left.
    @inline(__always)
    mutating func takePrepaidCharge() -> Int {
        let prepaid = prepaidCharge
        if prepaid > 0 { prepaidCharge = 0 }
        return prepaid
    }
}
