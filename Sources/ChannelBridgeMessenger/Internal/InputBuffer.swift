/// What a connection has read and not yet delivered: the frame decoder's buffer, and the frames
/// held back while a flow-control limit is reached (wire protocol §4.10), in arrival order.
///
/// Touched by the one thread that delivers at a time (the transport's reader), under the
/// connection's input lock, and emptied by whichever thread ends the session.
struct InputBuffer {
    /// A frame read but not delivered, and what it waits for (set for the first held frame only:
    /// the frames behind it wait for it).
    struct HeldFrame {
        var frame: Frame
        var byteCount: Int
        var needsHandlerSlot: Bool
        var needsAnswerRoom: Bool
        /// Bytes the request must be charged from the `RequestBudget` before it can start; 0 when
        /// it does not wait for the budget.
        var needsBudget: Int
        /// Bytes already charged from the `RequestBudget` for this request when its frame began
        /// (wire protocol §4.10, rule 8): handed to its delivery, or given back if it never starts.
        var prepaid = 0
    }

    /// Frames held behind the first beyond this many bytes stop the reading; the messenger then
    /// only waits. The first, the one that waits, is not counted: were it alone to stop the
    /// reading (a request larger than this that waits for the request budget), the answers to
    /// this side's calls behind it would wait too, and a handler that waits for one of them and
    /// holds what the first waits for would never finish.
    static let heldByteLimit = 64 << 10

    var decoder: FrameDecoder
    private var held: [HeldFrame] = []
    private var heldHead = 0
    private(set) var heldByteCount = 0

    init(decoder: FrameDecoder) {
        self.decoder = decoder
    }

    var isHolding: Bool { heldHead < held.count }

    /// True once enough is held behind the first held frame that nothing more should be read.
    var isHeldFull: Bool { isHolding && heldByteCount - held[heldHead].byteCount >= Self.heldByteLimit }

    var first: HeldFrame? { isHolding ? held[heldHead] : nil }

    var heldFrameCount: Int { held.count - heldHead }

    mutating func hold(
        _ frame: Frame, needsHandlerSlot: Bool = false, needsAnswerRoom: Bool = false, needsBudget: Int = 0,
        prepaid: Int = 0
    ) {
        let bytes = FrameEncoder.encodedLength(of: frame)
        held.append(
            HeldFrame(
                frame: frame, byteCount: bytes, needsHandlerSlot: needsHandlerSlot,
                needsAnswerRoom: needsAnswerRoom, needsBudget: needsBudget, prepaid: prepaid))
        heldByteCount += bytes
    }

    /// Takes the first held frame's prepaid budget bytes out, for its delivery to use.
    mutating func takeFirstPrepaid() -> Int {
        guard isHolding else { return 0 }
        defer { held[heldHead].prepaid = 0 }
        return held[heldHead].prepaid
    }

    /// The first held frame could not be delivered yet: record what it waits for now.
    mutating func updateFirst(needsHandlerSlot: Bool, needsAnswerRoom: Bool, needsBudget: Int, prepaid: Int) {
        guard isHolding else { return }
        held[heldHead].prepaid = prepaid
        held[heldHead].needsHandlerSlot = needsHandlerSlot
        held[heldHead].needsAnswerRoom = needsAnswerRoom
        held[heldHead].needsBudget = needsBudget
    }

    mutating func removeFirst() {
        guard isHolding else { return }  // emptied meanwhile by the end of the session
        heldByteCount -= held[heldHead].byteCount
        held[heldHead].frame = .cancel(id: 0)  // release the payload now
        heldHead += 1
        if heldHead == held.count {
            held.removeAll(keepingCapacity: held.count <= 64)
            heldHead = 0
        } else if heldHead >= 64, heldHead * 2 >= held.count {
            held.removeFirst(heldHead)
            heldHead = 0
        }
    }

    /// Takes every held request's prepaid budget bytes out (deliveries ended), to be given back.
    mutating func takeAllPrepaid() -> Int {
        var total = 0
        for index in held.indices[heldHead...] {
            total += held[index].prepaid
            held[index].prepaid = 0
        }
        return total
    }

    /// The session ended: nothing held will ever be delivered. Returns the budget bytes the
    /// dropped requests had prepaid, to be given back.
    mutating func dropAll() -> Int {
        let prepaid = held[heldHead...].reduce(0) { $0 + $1.prepaid }
        held = []
        heldHead = 0
        heldByteCount = 0
        decoder.discardBuffered()
        return prepaid
    }
}
