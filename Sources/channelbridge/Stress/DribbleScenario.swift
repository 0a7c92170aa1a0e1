import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket
import Foundation

/// `dribble`: the host's connection limit plus two peers say HELLO, then each that was served
/// begins a frame and sends one byte of it every 100 ms. While they hold every slot a new client
/// is refused; the frame deadline (`--frame-timeout`, 1 s here) must cut them, so that a new
/// client is served within that deadline plus 1 s of the dribbling's start.
enum DribbleScenario {
    static let helloKind: UInt8 = 0x01, goodbyeKind: UInt8 = 0x08
    static let tooManyConnections: UInt8 = 6, frameTimeout: UInt8 = 7

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        let limit = settings.scale < 1 ? max(2, settings.count(128)) : 128
        let deadline = settings.seconds(1)
        var extra = ["--frame-timeout", String(deadline)]
        if settings.scale < 1 { extra += ["--max-connections", String(limit)] }
        try await StressHost.with("dribble", settings: settings, extra: extra) { host in
            let path = host.socket
            let opened = try await ChildProcess.onThread("stress dribble open") {
                () -> (served: [RawPeer], all: [RawPeer], refused: Int) in
                var all: [RawPeer] = [], served: [RawPeer] = [], refused = 0
                for _ in 0..<(limit + 2) {
                    let peer = try RawPeer(path: path)
                    peer.write(RawPeer.hello())
                    all.append(peer)
                }
                let until = ContinuousClock.now + .seconds(10)
                for peer in all {
                    switch peer.readFrame(until: until) {
                    case (helloKind, _)?: served.append(peer)
                    case (goodbyeKind, let body)? where body.first == tooManyConnections: refused += 1
                    default: break
                    }
                }
                return (served, all, refused)
            }
            defer { for peer in opened.all { peer.close() } }
            report.figure("peers", opened.all.count)
            report.figure("served_with_hello", opened.served.count, "(the connection limit)")
            report.figure("refused_too_many_connections", opened.refused, "(target 2)")
            report.figure("frame_timeout_s", deadline)
            do {
                let early = try await host.connect()
                early.close()
                report.figure("new_client_while_full_refused", 0, "(target 1)")
            } catch {
                report.figure("new_client_while_full_refused", 1, "(target 1)")
            }
            let start = ContinuousClock.now
            let frame = try FrameEncoder.encode(
                .request(
                    id: 1, channel: "channelbridge/echo",
                    payload: [UInt8](repeating: 7, count: 1000)))
            async let dribbled = ChildProcess.onThread("stress dribble") { dribble(opened.served, frame, start: start) }
            let (attempts, servedAfter) = try await serveNewClient(host, start: start)
            let (cut, lastCutAfter, completed) = try await dribbled
            report.figure("dribblers_cut_by_frame_timeout", cut, "(target: all served)")
            report.figure("dribblers_finished_frame", completed, "(target 0)")
            report.figure("all_cut_after_s", lastCutAfter, "(frame timeout + scheduling)")
            report.figure("new_client_attempts", attempts)
            report.figure("new_client_served_after_s", servedAfter, "(target ≤ frame timeout + 1 s)")
        }
    }

    /// Sends each peer one byte of `frame` every 100 ms until the host answers it; returns how
    /// many got GOODBYE `frameTimeout`, when the last did (seconds from `start`), and how many
    /// finished their frame instead.
    static func dribble(_ peers: [RawPeer], _ frame: [UInt8], start: ContinuousClock.Instant) -> (Int, Double, Int) {
        var sent = [Int](repeating: 0, count: peers.count)
        var open = Set(peers.indices)
        var cut = 0, completed = 0, last = 0.0
        let giveUp = start + .seconds(60)
        while !open.isEmpty, ContinuousClock.now < giveUp {
            for index in open.sorted() {
                let peer = peers[index]
                if Syscalls.poll(peer.fd, forInput: true, milliseconds: 0).isReady {
                    let answer = peer.readFrame(until: .now + .seconds(1))
                    if answer?.kind == goodbyeKind, answer?.body.first == frameTimeout {
                        cut += 1
                        last = (ContinuousClock.now - start).milliseconds / 1000
                    } else if answer != nil {
                        completed += 1
                    }
                    open.remove(index)
                    continue
                }
                if sent[index] < frame.count {
                    peer.write([frame[sent[index]]])
                    sent[index] += 1
                }
            }
            Syscalls.sleep(microseconds: 100_000)
        }
        return (cut, last, completed)
    }

    /// Connects until the host serves a session (each refusal is awaited, then 20 ms pass) and
    /// an echo call is answered; returns the attempts and seconds from `start`.
    static func serveNewClient(_ host: StressHost, start: ContinuousClock.Instant) async throws -> (Int, Double) {
        var attempts = 0
        while true {
            attempts += 1
            let connection = try await SocketConnection.connect(to: host.socket)
            do {
                _ = try await connection.messenger.waitForPeerHello()
            } catch let error as MessengerError where error.code == .tooManyConnections {
                await connection.waitUntilClosed()
                guard ContinuousClock.now - start < .seconds(60) else { throw error }
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            let reply = try await connection.messenger.send(onChannel: "channelbridge/echo", message: [1, 2, 3])
            let after = (ContinuousClock.now - start).milliseconds / 1000
            connection.close()
            await connection.waitUntilClosed()
            guard reply == [1, 2, 3] else { throw StressError("the echo answered \(String(describing: reply))") }
            return (attempts, after)
        }
    }
}
