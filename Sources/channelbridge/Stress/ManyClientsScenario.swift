import ChannelBridgeChannels
import ChannelBridgeCodec
import Foundation
import ChannelBridgeSocket

/// `many-clients`: 100 clients, each making 1,000 echo calls on its own connection, all at once;
/// every reply must be the bytes sent.
enum ManyClientsScenario {
    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        try await StressHost.with("clients", settings: settings) { host in
            let clients = settings.count(100, minimum: 2)
            let calls = settings.count(1000, minimum: 10)
            let start = ContinuousClock.now
            let (wrong, failed) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for client in 0..<clients {
                    group.addTask {
                        let connection = try await host.connect()
                        let echo = BasicMessageChannel(
                            name: "channelbridge/echo", messenger: connection.messenger,
                            codec: BinaryCodec())
                        var wrong = 0, failed = 0
                        for call in 0..<calls {
                            let message = Array("client \(client) call \(call)".utf8)
                            do {
                                if try await echo.send(message) != message { wrong += 1 }
                            } catch {
                                failed += 1
                            }
                        }
                        connection.close()
                        await connection.waitUntilClosed()
                        return (wrong, failed)
                    }
                }
                var totals = (0, 0)
                for try await (wrong, failed) in group { totals = (totals.0 + wrong, totals.1 + failed) }
                return totals
            }
            let seconds = (ContinuousClock.now - start).milliseconds / 1000
            report.figure("clients", clients)
            report.figure("calls", clients * calls)
            report.figure("wrong_replies", wrong, "(target 0)")
            report.figure("failed_calls", failed, "(target 0)")
            report.figure("calls_per_s", Double(clients * calls) / seconds)
            report.figure("host_threads_after", host.threads())
        }
    }
}
