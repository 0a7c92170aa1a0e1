import ChannelBridgePlatform

/// One client connection passed through to the host byte for byte, on two threads (one per
/// direction). With a tap, each thread also copies the bytes it passed on into the recording
/// writer's queue, which decodes and writes them on a thread of its own; without one it only reads
/// and writes, so a proxy that does not record adds one hop and nothing else. When either side
/// ends, both connections are shut down and closed.
final class ProxySession: Sendable {
    private struct State {
        var pumpsRunning = 2
    }

    let clientFD: Int32
    let hostFD: Int32
    private let recording: (tap: SessionTap, writer: RecordingWriter)?
    /// The session's tap while it records.
    var tap: SessionTap? { recording?.tap }
    private let state = LockedValue(State())
    private let onEnd: @Sendable () -> Void

    static let chunkSize = 65_536

    init(
        clientFD: Int32, hostFD: Int32, recording: (tap: SessionTap, writer: RecordingWriter)?,
        onEnd: @escaping @Sendable () -> Void
    ) {
        self.clientFD = clientFD
        self.hostFD = hostFD
        self.recording = recording
        self.onEnd = onEnd
    }

    /// Starts both directions; false when a thread could not be started (the session is then ended).
    func start() -> Bool {
        let first = DetachedThread.tryStart(name: "cb record c→h") { [self] in
            pump(from: clientFD, to: hostFD, fromClient: true)
        }
        let second =
            first == 0
            ? DetachedThread.tryStart(name: "cb record h→c") { [self] in
                pump(from: hostFD, to: clientFD, fromClient: false)
            }
            : first
        if first != 0 { pumpEnded() }
        if second != 0 {
            Syscalls.shutdown(clientFD)
            Syscalls.shutdown(hostFD)
            pumpEnded()
        }
        return first == 0 && second == 0
    }

    /// Ends the session from outside (the proxy is stopping).
    func shutDown() {
        Syscalls.shutdown(clientFD)
        Syscalls.shutdown(hostFD)
    }

    private func pump(from source: Int32, to destination: Int32, fromClient: Bool) {
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { Syscalls.read(source, into: $0) }
            guard count > 0 else { break }
            let sent = buffer.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[..<count])
                guard let recording else { return Syscalls.sendAll(destination, chunk) }
                // The client's bytes are queued before they go on, so that the host's reply is
                // always queued after its request; the host's after, so that the client is not
                // kept waiting. The writer is woken after the bytes went on, for the same reason.
                var wake = fromClient && recording.writer.enqueue(chunk, fromClient: true, for: recording.tap)
                let sent = Syscalls.sendAll(destination, chunk)
                if !fromClient, sent >= 0 {
                    wake = recording.writer.enqueue(chunk, fromClient: false, for: recording.tap)
                }
                if wake { recording.writer.wakeWriter() }
                return sent
            }
            guard sent >= 0 else { break }
        }
        Syscalls.shutdown(source)
        Syscalls.shutdown(destination)
        pumpEnded()
    }

    private func pumpEnded() {
        let last = state.withLock { state -> Bool in
            state.pumpsRunning -= 1
            return state.pumpsRunning == 0
        }
        guard last else { return }
        Syscalls.closeDescriptor(clientFD)
        Syscalls.closeDescriptor(hostFD)
        if let recording { recording.writer.ended(recording.tap) }
        onEnd()
    }
}
