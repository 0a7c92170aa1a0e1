import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The measurement of `channelbridge stress connect`: connections opened one after another to a
/// running host, each timed from `connect(2)` to the whole of the host's HELLO frame, then
/// answered with the client's HELLO and closed. Runs on the caller's thread with blocking calls
/// (`ChildProcess.onThread`), so that no task scheduling is in the figure.
///
/// Also samples the host's children (its workers with `--isolation session`) every 10 ms on a
/// thread of its own, for their peak, and reads the host's descriptors and children before and
/// after; the host is the process that listens on the socket (`SO_PEERCRED` of a client socket
/// names it, whichever process serves the session).
struct ConnectLatency {
    var path: String
    var connections: Int
    /// The pause after each connection is closed, before the next connect.
    var spacing: Duration
    /// How long one connection may wait for the host's HELLO.
    var helloTimeout: Duration = .seconds(5)
    /// How long to wait after the loop for the host's children to settle before the last reading:
    /// an isolated host's idle pool, grown by the loop, is back to 2 after two quiet periods of
    /// 5 s (extension-host.md §1.8).
    var settleTimeout: Duration = .seconds(12)

    struct Result: Sendable {
        var hostPID: Int32
        /// Milliseconds from connect to the host's whole HELLO, one per connection that got one.
        var milliseconds: [Double]
        /// Connections answered with GOODBYE instead, and the first one's code and reason.
        var refused = 0
        var firstRefusal: String?
        /// Connections that saw end of file or nothing within `helloTimeout` instead of a frame.
        var unanswered = 0
        var workersBefore = 0, workersPeak = 0, workersAfter = 0, zombiesAfter = 0
        var descriptorsBefore: Int?, descriptorsAfter: Int?
        var seconds = 0.0
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Untimed connections after the first, 50 ms apart, before the "before" reading.
    static let warmUpConnections = 9

    func run() throws -> Result {
        let (hostPID, firstPeer) = try firstConnection()
        var result = Result(hostPID: hostPID, milliseconds: [])
        firstPeer.close()
        let hello = RawPeer.hello("channelbridge stress connect")
        // A few more, untimed and spaced so that an isolated host's pool does not grow: what a
        // host creates once, on its first sessions (a timer's descriptor), is not counted as
        // growth. Their sessions end before the "before" reading.
        for _ in 0..<Self.warmUpConnections {
            Syscalls.sleep(microseconds: 50_000)
            let peer = try RawPeer(path: path)
            if peer.readFrame(until: .now + helloTimeout)?.kind == Frame.Kind.hello.rawValue { peer.write(hello) }
            peer.close()
        }
        settle(result: &result, target: nil)
        result.workersBefore = Self.live(ProcessTable.children(of: hostPID)).count
        result.descriptorsBefore = ProcessTable.descriptors(of: hostPID)
        let sampler = ChildSampler(hostPID: hostPID)
        result.milliseconds.reserveCapacity(connections)
        let loopStart = ContinuousClock.now
        for _ in 0..<connections {
            let start = ContinuousClock.now
            let peer = try RawPeer(path: path)
            let frame = peer.readFrame(until: start + helloTimeout)
            let elapsed = ContinuousClock.now - start
            switch frame {
            case let (kind, _)? where kind == Frame.Kind.hello.rawValue:
                result.milliseconds.append(Self.milliseconds(elapsed))
                peer.write(hello)
            case let (kind, body)? where kind == Frame.Kind.goodbye.rawValue:
                result.refused += 1
                if result.firstRefusal == nil { result.firstRefusal = Self.goodbyeText(body) }
            default:
                result.unanswered += 1
            }
            peer.close()
            if spacing > .zero { Syscalls.sleep(microseconds: UInt32(Self.milliseconds(spacing) * 1000)) }
        }
        result.seconds = Self.milliseconds(ContinuousClock.now - loopStart) / 1000
        result.workersPeak = sampler.stop()
        settle(result: &result, target: result.workersBefore)
        return result
    }

    /// Connects once to learn the host's pid and that it answers.
    private func firstConnection() throws -> (Int32, RawPeer) {
        let peer = try RawPeer(path: path)
        guard let credentials = Syscalls.peerCredentials(peer.fd) else {
            peer.close()
            throw Failure(description: "\(path): the host's credentials cannot be read (SO_PEERCRED)")
        }
        guard let frame = peer.readFrame(until: .now + helloTimeout) else {
            peer.close()
            throw Failure(description: "\(path): no HELLO from the host within \(helloTimeout)")
        }
        if frame.kind == Frame.Kind.goodbye.rawValue {
            peer.close()
            throw Failure(
                description: "\(path): the host refused the first connection: \(Self.goodbyeText(frame.body))")
        }
        return (credentials.pid, peer)
    }

    /// Waits until the host's live children are no more than `target` and its descriptors no more
    /// than before the loop (the last sessions' sockets close a moment after their clients'), or,
    /// with no target, until both stop changing for 100 ms; at most `settleTimeout`. Then records
    /// the children and descriptors.
    private func settle(result: inout Result, target: Int?) {
        let deadline = ContinuousClock.now + settleTimeout
        var last = (-1, -1)
        while ContinuousClock.now < deadline {
            let children = ProcessTable.children(of: result.hostPID)
            let live = Self.live(children).count
            let descriptors = ProcessTable.descriptors(of: result.hostPID) ?? 0
            if let target, live <= target, children.count == live,
                descriptors <= result.descriptorsBefore ?? .max
            {
                break
            }
            if target == nil, (live, descriptors) == last { break }
            last = (live, descriptors)
            Syscalls.sleep(microseconds: 100_000)
        }
        let children = ProcessTable.children(of: result.hostPID)
        result.workersAfter = Self.live(children).count
        result.zombiesAfter = children.count - result.workersAfter
        result.descriptorsAfter = ProcessTable.descriptors(of: result.hostPID)
    }

    static func live(_ children: [(pid: Int32, state: Character)]) -> [Int32] {
        children.filter { $0.state != "Z" && $0.state != "X" }.map(\.pid)
    }

    static func goodbyeText(_ body: [UInt8]) -> String {
        guard body.count >= 2 else { return "GOODBYE (no code)" }
        let code = UInt16(body[0]) | UInt16(body[1]) << 8
        return "GOODBYE \(code): " + String(decoding: body[2...], as: UTF8.self)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// The percentile `fraction` of `samples` (nearest rank).
    static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, max(0, Int(fraction * Double(sorted.count - 1) + 0.5)))]
    }
}

/// Counts a host's live children every 10 ms on a thread of its own and keeps the peak.
private final class ChildSampler: Sendable {
    private let state = LockedValue<(peak: Int, running: Bool)>((0, true))
    private let finished = TimedSemaphore()

    init(hostPID: Int32) {
        DetachedThread.start(name: "cb connect sampler") { [self] in
            while state.withLock({ $0.running }) {
                let live = ConnectLatency.live(ProcessTable.children(of: hostPID)).count
                state.withLock { $0.peak = max($0.peak, live) }
                Syscalls.sleep(microseconds: 10_000)
            }
            finished.post()
        }
    }

    /// Stops sampling; the peak seen.
    func stop() -> Int {
        state.withLock { $0.running = false }
        finished.wait()
        return state.withLock { $0.peak }
    }
}
