/// The byte pipe under a `MessengerConnection`: a socket, or the in-memory pair in
/// ChannelBridgeTesting.
///
/// The connection hands the transport whole frames, one write each (a head the transport may have
/// written straight into its buffer, and payload arrays), and the transport hands received bytes
/// back through `MessengerConnection.receive(_:)` and `receiveEnd(error:)`.
///
/// Rules a transport follows:
/// - It accepts writes from the moment it creates the connection: the connection's initializer
///   writes HELLO.
/// - `write` may be called from any thread at the same time, including from inside `receive` (a
///   handler that answers at once replies on the receiving thread). It must not block on the
///   peer: queue what cannot be sent now. Bytes of one call go out back to back and in call order.
///   Queuing lets a transport send many frames with one system call.
/// - `receive` calls for one connection never overlap. `receiveEnd` may come from another thread
///   while a `receive` is under way (a transport whose write failed ends the session at once);
///   the connection then delivers nothing more.
/// - `close()` sends what is queued (within a bounded time), then ends the connection. Writes
///   after `close()` are dropped. The connection has already failed its pending calls when it
///   calls `close()`, so calling `receiveEnd` afterwards is allowed but not needed.
/// - After its last `receive` (its reader has ended), the delivering side calls
///   `MessengerConnection.deliveriesEnded()`, so that nothing a delivery kept outlives the session.
/// - A transport that can stop reading adopts `FlowControlledTransport`, which gives the
///   connection flow control (wire protocol §4.10); any other transport is read as it comes.
///
/// Package API, with `MessengerConnection.init(role:options:transport:)`, `receive` and
/// `receiveEnd`: applications get a connection from a transport the package ships (the socket's
/// `SocketConnection`, the in-memory pair of ChannelBridgeTesting), never feed one bytes.
package protocol FrameTransport: AnyObject, Sendable {
    /// Queues one frame: `length` bytes that `encode` writes into the memory it is given (all of
    /// them, so that a transport can have a small frame written straight into its own send
    /// buffer), then each of `payloads` back to back, kept in their own arrays (the rest of the
    /// frame's payload, sent with scatter-gather I/O instead of copied).
    ///
    /// `flush` is a hint that nothing is about to join this frame: it answers the last frame of
    /// the bytes `receive` was given, and is written from inside that `receive`. A transport that
    /// holds what its receiving thread writes until the delivery ends, to send it together, may
    /// send this one at once. More frames may still be written.
    func write(
        frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
        _ encode: (UnsafeMutableRawBufferPointer) -> Void)

    /// Sends what is queued, then ends the connection.
    func close()

    /// Whether the calling thread may wait for a reply by reading and delivering itself
    /// (`driveReader(until:)`): it is the thread that reads this transport, running a job with
    /// nothing else waiting for the thread. False by default.
    var canDriveReader: Bool { get }

    /// Called where `canDriveReader` was true, after the request was written: reads and delivers
    /// to `connection` (the one this transport feeds) on this thread, as the reader does, until
    /// `settled()` is true (returns true), or until the thread is needed for something else first
    /// (a job queued for it, input held back, no way to be woken; returns false, and the caller
    /// waits as any other). A blocked driver looks at `settled()` again when
    /// `wakeDrivingReader()` is called.
    func driveReader(for connection: MessengerConnection, until settled: () -> Bool) -> Bool

    /// Wakes a thread blocked in `driveReader(until:)`, from any thread.
    func wakeDrivingReader()
}

extension FrameTransport {
    /// Queues one frame of exactly `length` bytes, which `encode` writes.
    @inline(__always)
    package func write(frameOfLength length: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Void) {
        write(frameOfLength: length, followedBy: [], flush: false, encode)
    }

    /// The bytes of the frame `write(frameOfLength:followedBy:flush:_:)` is given, in one array:
    /// for a transport that keeps no buffer of its own (a test's log, the in-memory pair).
    package static func frameBytes(
        length: Int, followedBy payloads: [[UInt8]], _ encode: (UnsafeMutableRawBufferPointer) -> Void
    ) -> [UInt8] {
        var frame = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            encode(UnsafeMutableRawBufferPointer(buffer))
            count = length
        }
        for payload in payloads { frame.append(contentsOf: payload) }
        return frame
    }

    package var canDriveReader: Bool { false }

    package func driveReader(for connection: MessengerConnection, until settled: () -> Bool) -> Bool { settled() }

    package func wakeDrivingReader() {}
}
