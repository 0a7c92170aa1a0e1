/// What a `SocketTransport` keeps for its reader thread alone, with no lock: it lives in a
/// `ThreadConfined` box (`SocketTransport.reader`), which the reader thread claims as `runReader`
/// starts, and which a debug build checks at every access. Nothing else touches it while the
/// transport is shared: another thread that writes finds out it is not the reader (`state.reader`)
/// before it would, and `deinit`, which frees the scratch memory, runs when no thread is left.
struct SocketReaderState {
    /// The reader thread queued frames and left them for `flushDeferred`. Nothing else leaves the
    /// queue unsent with nobody flushing, so without it `flushDeferred` has nothing to do and
    /// skips the lock. Set in `enqueue` when the queuing thread is the reader, read and cleared
    /// in `flushDeferred`.
    var leftFrames = false
    /// The wake eventfd once the reader thread has looked it up (`wakeDescriptor`), else -1. The
    /// descriptor lives as long as the socket's.
    var wake: Int32 = -1
    /// A read inside `driveReader` met the socket's end and told the connection: the reader loop
    /// stops without reading again.
    var sawEnd = false
    /// Where the reader thread encodes a small frame it sends at once without queueing it
    /// (`enqueue`'s direct send): `directSendLimit` bytes, made on first use, used inside
    /// `state`'s lock; freed in the transport's `deinit`.
    var frameScratch: UnsafeMutableRawBufferPointer?
    /// The peer's unfinished frame against its deadline.
    var frameClock = FrameClock()
}
