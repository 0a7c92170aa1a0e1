import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import Foundation

/// `large-requests`: what a request costs the host in memory, as its peak resident memory
/// (`VmHWM`) above the peak before the request, per byte of the request's frame. A fresh host for
/// each case, since the peak only grows: `appendToList` of 50 M nulls (refused with
/// REQUEST_TOO_LARGE), of 1 M short strings and of 1 M int32 values (stored); then 20 clients at
/// once sending 50 M nulls each, and 20 at once sending 250 k short strings each (one group file
/// holds all of them) to a host whose request budget is 16 MiB. Every client must get its answer
/// and make a further call.
enum LargeRequestsScenario {
    static let channel = "shared_preference_app_group"
    static let budget = 16 << 20

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        let nulls = settings.count(50_000_000, minimum: 100_000)
        let items = settings.count(1_000_000, minimum: 10_000)
        let clients = settings.count(20, minimum: 2)

        let nullCall = appendNulls(key: "nulls", count: nulls)
        try await measure("nulls", nullCall, refused: true, settings: settings, report: report)
        let strings = try StandardMethodCodec().encodeMethodCall(
            MethodCall(
                "appendToList",
                arguments: [
                    "key": "strings", "values": .list((0..<items).map { .string("item \($0 + 1_000_000)") }),
                ]))
        try await measure("strings", strings, refused: false, settings: settings, report: report)
        let ints = try StandardMethodCodec().encodeMethodCall(
            MethodCall(
                "appendToList",
                arguments: [
                    "key": "ints", "values": .list((0..<items).map { .int32(Int32($0)) }),
                ]))
        try await measure("ints", ints, refused: false, settings: settings, report: report)

        report.figure("clients_at_once", clients)
        try await concurrently(
            "nulls_at_once", Array(repeating: nullCall, count: clients), refused: true,
            extra: [], settings: settings, report: report)
        let perClient = (0..<clients).map { client in
            (try? StandardMethodCodec().encodeMethodCall(
                MethodCall(
                    "appendToList",
                    arguments: [
                        "key": .string("strings \(client)"),
                        "values": .list((0..<items / 4).map { .string("item \($0 + 1_000_000)") }),
                    ]))) ?? []
        }
        try await concurrently(
            "strings_at_once", perClient, refused: false,
            extra: ["--request-budget", String(budget)], settings: settings, report: report)
        report.figure("strings_at_once_budget_mb", Double(budget) / 1_048_576)
    }

    /// `appendToList(key, [null × count])`, written directly: the frame without the values.
    static func appendNulls(key: String, count: Int) -> [UInt8] {
        var bytes =
            (try? StandardMethodCodec().encodeMethodCall(
                MethodCall(
                    "appendToList",
                    arguments: [
                        "key": .string(key), "values": .list([]),
                    ]))) ?? []
        bytes.removeLast()  // the empty list's size; "values" is the map's last entry
        bytes.append(255)
        withUnsafeBytes(of: UInt32(count).littleEndian) { bytes += $0 }
        bytes += [UInt8](repeating: 0, count: count)
        return bytes
    }

    /// One call on a fresh host: its peak memory above the peak before it, per byte of the call.
    static func measure(
        _ name: String, _ call: [UInt8], refused: Bool, settings: StressSettings,
        report: StressReport
    ) async throws {
        try await StressHost.with("large-\(name)", settings: settings) { host in
            let connection = try await host.connect()
            try await smallCall(connection)
            let before = host.peakResidentMegabytes()
            try check(try await connection.messenger.send(onChannel: channel, message: call), refused: refused, name)
            try await smallCall(connection)
            let grown = host.peakResidentMegabytes() - before
            report.figure("\(name)_frame_mb", Double(call.count) / 1_048_576)
            report.figure("\(name)_peak_growth_mb", grown)
            report.figure("\(name)_multiple", grown * 1_048_576 / Double(call.count), "(target at most 8)")
            connection.close()
            await connection.waitUntilClosed()
        }
    }

    /// Each of `calls` from a client of its own, all at once; then a further call from each.
    static func concurrently(
        _ name: String, _ calls: [[UInt8]], refused: Bool, extra: [String],
        settings: StressSettings, report: StressReport
    ) async throws {
        try await StressHost.with("large-\(name)", settings: settings, extra: extra) { host in
            let connections = try await withThrowingTaskGroup(of: SocketConnection.self) { group in
                for _ in calls { group.addTask { try await host.connect() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for connection in connections { try await smallCall(connection) }
            let before = host.peakResidentMegabytes()
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for (connection, call) in zip(connections, calls) {
                    group.addTask {
                        try check(
                            try await connection.messenger.send(onChannel: channel, message: call), refused: refused,
                            name)
                        try await smallCall(connection)
                        return 1
                    }
                }
                return try await group.reduce(0, +)
            }
            let grown = host.peakResidentMegabytes() - before
            let bytes = calls.reduce(0) { $0 + $1.count }
            report.figure("\(name)_answered", answered, "(target \(calls.count))")
            report.figure("\(name)_frames_mb", Double(bytes) / 1_048_576)
            report.figure("\(name)_peak_growth_mb", grown)
            for connection in connections {
                connection.close()
                await connection.waitUntilClosed()
            }
        }
    }

    static func smallCall(_ connection: SocketConnection) async throws {
        let prefs = MethodChannel(name: channel, messenger: connection.messenger)
        _ = try await prefs.invokeMethod("setInt", arguments: ["key": "small", "value": 1])
    }

    static func check(_ reply: [UInt8]?, refused: Bool, _ name: String) throws {
        let envelope = try StandardMethodCodec().decodeEnvelope(reply ?? [])
        switch (envelope, refused) {
        case (.success, false):
            return
        case (.error(let error), true) where error.code == MethodChannel.requestTooLargeErrorCode:
            return
        default:
            throw StressError("\(name): unexpected answer \(envelope)")
        }
    }
}
