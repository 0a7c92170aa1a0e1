import ChannelBridgeChannels
import ChannelBridgeCodec
import Foundation
import ChannelBridgeSocket

/// `idle-connections`: 1,000 connections opened at once that never send HELLO. Each must be
/// answered (the host's HELLO) or refused (GOODBYE tooManyConnections) promptly; the host's memory
/// and threads stay bounded by its connection limit; the HELLO timeout closes the idle ones; a new
/// client is refused while the host is full and served once they are gone.
enum IdleConnectionsScenario {
    static let helloKind: UInt8 = 0x01, goodbyeKind: UInt8 = 0x08

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        try await StressHost.with("idle", settings: settings) { host in
            let count = settings.count(1000, minimum: 4)
            report.figure("host_threads_idle", host.threads())
            let path = host.socket
            let outcome = try await ChildProcess.onThread("stress idle") {
                () -> (peers: [RawPeer], accepted: [Int], refused: Int, unanswered: Int, ms: Double) in
                let start = ContinuousClock.now
                var peers: [RawPeer] = []
                for _ in 0..<count { peers.append(try RawPeer(path: path)) }
                var accepted: [Int] = [], refused = 0, unanswered = 0
                let deadline = ContinuousClock.now + .seconds(10)
                for (index, peer) in peers.enumerated() {
                    switch peer.readFrame(until: deadline) {
                    case (helloKind, _)?: accepted.append(index)
                    case (goodbyeKind, let body)? where body.count >= 2 && body[0] == 6 && body[1] == 0: refused += 1
                    default: unanswered += 1
                    }
                }
                return (peers, accepted, refused, unanswered, (ContinuousClock.now - start).milliseconds)
            }
            report.figure("connections", count)
            report.figure("answered_with_hello", outcome.accepted.count)
            report.figure("refused_too_many_connections", outcome.refused)
            report.figure("unanswered", outcome.unanswered, "(target 0)")
            report.figure("all_answered_within_ms", outcome.ms, "(target ≤ 5000)")
            report.figure("host_rss_mb", host.residentMegabytes(), "(target < 64)")
            report.figure("host_threads", host.threads(), "(bound: 2 × max-connections + accept + pool + store)")
            if outcome.refused > 0 {
                // Full: a new client is refused with its own GOODBYE.
                do {
                    let late = try await host.connect()
                    late.close()
                    report.figure("new_client_while_full_refused", 0, "(target 1)")
                } catch {
                    report.figure("new_client_while_full_refused", 1, "(target 1)")
                }
            }
            // The idle ones are closed by the HELLO timeout: GOODBYE, then end of file.
            let opened = ContinuousClock.now
            let (closed, seconds) = try await ChildProcess.onThread("stress hello timeout") { () -> (Int, Double) in
                let deadline = ContinuousClock.now + .seconds(30)
                var closed = 0
                for index in outcome.accepted where outcome.peers[index].readUntilClosed(until: deadline) {
                    closed += 1
                }
                return (closed, (ContinuousClock.now - opened).milliseconds / 1000)
            }
            report.figure("closed_by_hello_timeout", closed)
            report.figure("hello_timeout_closed_all_after_s", seconds, "(HELLO timeout 5 s by default)")
            for peer in outcome.peers { peer.close() }
            // Served again as soon as they are gone.
            let start = ContinuousClock.now
            let connection = try await host.connect()
            let echo = BasicMessageChannel(
                name: "channelbridge/echo", messenger: connection.messenger, codec: BinaryCodec())
            let served = try await echo.send([1, 2, 3]) == [1, 2, 3]
            report.figure("new_client_served_after_close", served ? 1 : 0, "(target 1)")
            report.figure("new_client_served_in_ms", (ContinuousClock.now - start).milliseconds)
            connection.close()
            await connection.waitUntilClosed()
            report.figure("host_threads_after_close", host.threads())
        }
    }
}
