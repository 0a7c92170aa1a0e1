import ChannelBridgeMessenger
import ChannelBridgePlatform

/// A call that waits for its reply by reading the socket itself, on the reader thread
/// (`MessengerConnection.startDrivenRequest`).
///
/// The reader thread runs a job (a task preferring `ReaderExecutor`) between reads. When that job
/// was alone and has queued nothing since, no other work needs the thread until the next read,
/// so the job's call may block it: it waits in `poll` on the socket and on the wake eventfd, and
/// reads and delivers exactly as the reader loop would (`readAndDeliver`), until its reply has
/// been delivered. While it waits, other threads' jobs go to the global executor, as they do
/// whenever the reader blocks (`willBlock`). It stops driving, and lets the call wait on a
/// continuation, as soon as the thread is wanted for anything else: a job queued for it (by a
/// delivery, or another thread before it blocked), input held back (flow control is the
/// reader loop's business), or part of a frame buffered (so is the frame deadline). The wake
/// eventfd is what makes a blocked driver cancellable: a cancel or a close from another thread
/// records the call's failure and signals it. It costs one
/// `poll` per wait beside the `read` the reader loop makes alone; a wait whose reply is already
/// buffered costs neither.
extension SocketTransport {
    var canDriveReader: Bool {
        executor.mayDriveFromCurrentJob
    }

    func driveReader(for connection: MessengerConnection, until settled: () -> Bool) -> Bool {
        // Only the reader thread gets here (`canDriveReader`), while it runs a lone job, so
        // `connection` is the one `runReader` feeds.
        var wake = reader.withValue { $0.wake }
        if wake < 0 {
            guard let made = wakeDescriptor() else { return settled() }
            wake = made
            reader.withValue { $0.wake = made }
        }
        // Frames the deliveries below write are the reader's as usual, sent together after each
        // read; the job's own later frames go out at once again (`runningLoneJob`).
        executor.runningLoneJob = false
        defer { executor.runningLoneJob = true }
        while true {
            flushDeferred()
            if settled() { return true }
            // An unfinished frame is timed by the reader loop (`awaitRestOfFrame`), not here.
            guard !reader.withValue({ $0.sawEnd }), case .read = connection.inputDemand, !timesFrame(of: connection),
                executor.willBlock()
            else { return false }
            let polled = Syscalls.poll(fd, forInput: true, orReadable: wake)
            executor.didUnblock()
            if let (socket, woken) = polled, woken.readable {
                state.withLock { state in
                    Syscalls.drainEvent(state.wakeFD)
                    state.wakePending = false
                }
                if !socket.isReady { continue }
            }
            // Readable, hung up or failed (or `poll` itself failed): the read tells which, as in
            // the reader loop.
            guard readAndDeliver(connection) else {
                reader.withValue { $0.sawEnd = true }
                return settled()
            }
        }
    }

    func wakeDrivingReader() {
        inputMayResume()
    }
}
