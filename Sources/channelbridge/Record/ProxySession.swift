import ChannelBridgeMessenger
import ChannelBridgePlatform

/// One client connection passed through to the host byte for byte, on two threads (one per
/// direction). With a tap, each thread also decodes the frames it passed on and hands them to the
/// tap; without one it only reads and writes, so a proxy that does not record adds one hop and
/// nothing else. When either side ends, both connections are shut down and closed.
final class ProxySession: Sendable {
    private struct State {
        var pumpsRunning = 2
    }

    let clientFD: Int32
    let hostFD: Int32
    private let tap: SessionTap?
    private let state = LockedValue(State())
    private let onEnd: @Sendable () -> Void

    static let chunkSize = 65_536

    init(clientFD: Int32, hostFD: Int32, tap: SessionTap?, onEnd: @escaping @Sendable () -> Void) {
        self.clientFD = clientFD
        self.hostFD = hostFD
        self.tap = tap
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
        var decoder = tap.map { _ in FrameDecoder(maxFrameLength: Int(UInt32.max)) }
        while true {
            let count = buffer.withUnsafeMutableBytes { Syscalls.read(source, into: $0) }
            guard count > 0 else { break }
            // The client's frames are noted before they go on, so that the host's reply always
            // finds its request; the host's after, so that the client is not kept waiting.
            if fromClient { tapFrames(buffer[..<count], &decoder, fromClient: fromClient) }
            let sent = buffer.withUnsafeBytes {
                Syscalls.sendAll(destination, UnsafeRawBufferPointer(rebasing: $0[..<count]))
            }
            guard sent >= 0 else { break }
            if !fromClient { tapFrames(buffer[..<count], &decoder, fromClient: fromClient) }
        }
        Syscalls.shutdown(source)
        Syscalls.shutdown(destination)
        pumpEnded()
    }

    private func tapFrames(_ bytes: ArraySlice<UInt8>, _ decoder: inout FrameDecoder?, fromClient: Bool) {
        guard let tap, decoder != nil else { return }
        decoder!.append(bytes)
        do {
            while let frame = try decoder!.next() {
                if fromClient { tap.fromClient(frame) } else { tap.fromHost(frame) }
            }
        } catch {
            // Bytes that are not frames: passed on as they are, no longer recorded.
            decoder = nil
        }
    }

    private func pumpEnded() {
        let last = state.withLock { state -> Bool in
            state.pumpsRunning -= 1
            return state.pumpsRunning == 0
        }
        guard last else { return }
        Syscalls.closeDescriptor(clientFD)
        Syscalls.closeDescriptor(hostFD)
        tap?.end()
        onEnd()
    }
}
