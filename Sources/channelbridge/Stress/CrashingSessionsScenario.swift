import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket
import Foundation

/// `crashing-sessions`: a host with a plugin that traps on request (`isolation-test-host`, built
/// beside `channelbridge`) and `--isolation session` (Protocol/extension-host.md §1.8). Sessions
/// open one after another and each makes the plugin trap (a failed `as!`: SIGABRT), while 10
/// other clients each call `echo` in a loop and listen to a preference a writer changes every
/// 10 ms. The healthy clients must see no error; the figure that matters is the longest gap
/// between two of their replies. Each trapping client must get GOODBYE `sessionCrashed`. At the
/// end: the host's workers (idle ones only) and zombies (none). Then, with `--isolation session`
/// and with `none`: echo round trips one at a time and 64 in flight, and 1,000 connections opened
/// and closed (time to the host's HELLO, workers, zombies and the host's descriptors after).
///
/// `crashing-pigeon-sessions`: the same crashes and healthy clients against a host serving
/// Pigeon's generated Swift (`pigeon-host-example`, isolated by default): each trapping client
/// sends `["x", 1]` to `add`, which declares two ints, and the healthy clients call `add`.
enum CrashingSessionsScenario {
    static let crash = "test/crash"
    static let changes = "shared_preference_app_group/changes"

    /// A host to make crash, and the calls made there.
    struct Target: Sendable {
        var product: String
        var arguments: [String]
        /// What a trapping client sends; its session ends instead of answering.
        var trap: @Sendable (SocketConnection) async -> Void
        /// What the trapping client's connection must end with.
        var crashed: String
        /// Healthy client `client`'s call number `call`: whether its answer was right.
        var call: @Sendable (SocketConnection, _ client: Int, _ call: Int) async throws -> Bool
    }

    static let flutterPlugin = Target(
        product: "isolation-test-host", arguments: ["--isolation", "session"],
        trap: { connection in
            _ = try? await MethodChannel(name: crash, messenger: connection.messenger)
                .invokeMethod("abort", arguments: "two")
        },
        crashed: "the process serving this session crashed: the session's worker died by SIGABRT",
        call: { connection, client, call in
            // Strings: the plugin's Foundation round trip keeps them as they are (an int64 that
            // fits comes back as an int32), though not the map's order.
            let sent: StandardValue = ["client": .string("\(client)"), "call": .string("\(call)")]
            let echoed = try await MethodChannel(name: crash, messenger: connection.messenger)
                .invokeMethod("echo", arguments: sent)
            return echoed.dictionaryValue == sent.dictionaryValue
        })

    static let pigeonAdd = "dev.flutter.pigeon.pigeon_api_example.ShareHostApi.add"

    static let pigeon = Target(
        product: "pigeon-host-example", arguments: [],
        trap: { connection in
            let add = BasicMessageChannel(
                name: pigeonAdd, messenger: connection.messenger, codec: StandardMessageCodec())
            _ = try? await add.send([.string("x"), .int64(1)])
        },
        crashed: "the process serving this session crashed: the session's worker died by SIGABRT "
            + "in the handler of channel '\(pigeonAdd)'",
        call: { connection, client, call in
            let add = BasicMessageChannel(
                name: pigeonAdd, messenger: connection.messenger, codec: StandardMessageCodec())
            let reply = try await add.send([.int64(Int64(client)), .int64(Int64(call))])
            return reply?.listValue?.first?.intValue == client + call
        })

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        try await runCrashes(flutterPlugin, settings, report)
        try await runCallPath(settings, report)
    }

    static func runPigeon(_ settings: StressSettings, _ report: StressReport) async throws {
        try await runCrashes(pigeon, settings, report)
    }

    /// Sessions that trap one after another while 10 healthy clients call and listen.
    static func runCrashes(_ target: Target, _ settings: StressSettings, _ report: StressReport) async throws {
        try await StressHost.with(
            "crashing", settings: settings, extra: target.arguments, product: target.product
        ) { host in
            let crashes = settings.count(100, minimum: 2)
            let healthyCount = 10
            let stop = Flag()
            let start = ContinuousClock.now
            let outcome = try await withThrowingTaskGroup(of: Healthy?.self) { group in
                for client in 0..<healthyCount {
                    group.addTask { try await healthyClient(client, target: target, host: host, until: stop) }
                }
                group.addTask {
                    // The writer whose changes the healthy clients listen to.
                    let connection = try await host.connect()
                    let prefs = MethodChannel(name: "shared_preference_app_group", messenger: connection.messenger)
                    var tick = 0
                    while !stop.isSet {
                        tick += 1
                        _ = try await prefs.invokeMethod(
                            "setInt", arguments: ["key": "tick", "value": .int64(Int64(tick))])
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    connection.close()
                    await connection.waitUntilClosed()
                    return nil
                }
                try await Task.sleep(for: .milliseconds(300))
                var goodbyes = 0, refused = 0, otherEnds: [String] = []
                for _ in 0..<crashes {
                    let connection: SocketConnection
                    do {
                        connection = try await host.connect()
                    } catch let error as MessengerError where error.code == .tooManyConnections {
                        // The host's crash budget (extension-host.md §1.8).
                        refused += 1
                        if otherEnds.count < 3 { otherEnds.append(error.message) }
                        continue
                    }
                    await target.trap(connection)
                    await connection.waitUntilClosed()
                    let end = connection.messenger.closeError?.message ?? "no error"
                    if end.hasPrefix(target.crashed) {
                        goodbyes += 1
                    } else if otherEnds.count < 3 {
                        otherEnds.append(end)
                    }
                }
                stop.set()
                var healthy = Healthy()
                for try await result in group {
                    if let result { healthy.merge(result) }
                }
                return (goodbyes, refused, otherEnds, healthy)
            }
            let seconds = (ContinuousClock.now - start).milliseconds / 1000
            let (goodbyes, refused, otherEnds, healthy) = outcome
            report.figure("trapping_sessions", crashes)
            report.figure("refused_by_crash_budget", refused)
            report.figure("session_crashed_goodbyes", goodbyes, "(target \(crashes))")
            for end in otherEnds { report.figure("other_end", 1, end) }
            report.figure("crashes_per_s", Double(crashes) / seconds)
            report.figure("healthy_calls", healthy.calls)
            report.figure("healthy_errors", healthy.errors, healthy.firstError ?? "(target 0)")
            report.figure("healthy_longest_gap_ms", healthy.longestGap.milliseconds, "(target < 50)")
            report.figure("healthy_events", healthy.events)
            // Reaping follows each session's end by a moment: give it that moment.
            try await Task.sleep(for: .milliseconds(500))
            let children = ProcessTable.children(of: host.child.pid).map(\.state)
            report.figure("workers_after", children.count, "(idle, the pool grown by the crashes: at most 8)")
            report.figure("zombies_after", children.filter { $0 == "Z" }.count, "(target 0)")
        }
    }

    /// Echo round trips and connections, with `--isolation session` and with `none`.
    static func runCallPath(_ settings: StressSettings, _ report: StressReport) async throws {
        // The call path and the cost of a connection, with isolation and without. The crashed
        // workers' backtraces (Swift's backtracer, in processes of their own) finish first.
        try await Task.sleep(for: .seconds(1))
        for isolation in ["session", "none"] {
            try await StressHost.with(
                "isolation-\(isolation)", settings: settings, extra: ["--isolation", isolation],
                product: "isolation-test-host"
            ) { host in
                let (rtt, pipelined) = try await callPath(host, calls: settings.count(20_000, minimum: 100))
                report.figure("\(isolation)_echo_rtt_p50_us", rtt, "(one call at a time)")
                report.figure("\(isolation)_echo_pipelined_calls_per_s", pipelined, "(64 in flight)")
                let descriptorsBefore = ProcessTable.descriptors(of: host.child.pid) ?? 0
                let connects = settings.count(1000, minimum: 10)
                var times: [Double] = []
                times.reserveCapacity(connects)
                for _ in 0..<connects {
                    let start = ContinuousClock.now
                    let connection = try await host.connect()
                    times.append((ContinuousClock.now - start).milliseconds)
                    connection.close()
                    await connection.waitUntilClosed()
                }
                times.sort()
                report.figure("\(isolation)_connections", connects)
                report.figure("\(isolation)_connect_to_hello_p50_ms", times[times.count / 2], "(target < 5)")
                report.figure("\(isolation)_connect_to_hello_p99_ms", times[times.count * 99 / 100])
                // Reaping follows each session's end by a moment, so does the host's close of the
                // connection's socket, and an isolated host's idle pool, grown by the loop, shrinks
                // back to 2 within two quiet periods of 5 s (extension-host.md §1.8): wait for all
                // three, up to 15 s. A descriptor the host keeps is still counted after that.
                let resting = isolation == "session" ? 2 : 0
                let settleStart = ContinuousClock.now
                while ProcessTable.children(of: host.child.pid).count > resting
                    || (ProcessTable.descriptors(of: host.child.pid) ?? 0) > descriptorsBefore,
                    ContinuousClock.now - settleStart < .seconds(15)
                {
                    try await Task.sleep(for: .milliseconds(50))
                }
                report.figure("\(isolation)_settle_ms", (ContinuousClock.now - settleStart).milliseconds)
                let children = ProcessTable.children(of: host.child.pid).map(\.state)
                report.figure("\(isolation)_workers_after", children.count)
                report.figure("\(isolation)_zombies_after", children.filter { $0 == "Z" }.count, "(target 0)")
                report.figure(
                    "\(isolation)_host_fd_growth",
                    (ProcessTable.descriptors(of: host.child.pid) ?? 0) - descriptorsBefore, "(target 0)")
            }
        }
    }

    /// The p50 of one echo call at a time (µs), then calls per second with 64 in flight.
    static func callPath(_ host: StressHost, calls: Int) async throws -> (Double, Double) {
        let connection = try await host.connect()
        let echo = BasicMessageChannel(
            name: "channelbridge/echo", messenger: connection.messenger, codec: BinaryCodec())
        let message = Array("ping from crashing-sessions".utf8)
        var times: [Double] = []
        times.reserveCapacity(calls)
        for _ in 0..<calls {
            let start = ContinuousClock.now
            guard try await echo.send(message) == message else { throw StressError("the echo was wrong") }
            times.append((ContinuousClock.now - start).milliseconds * 1000)
        }
        times.sort()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<64 {
                group.addTask {
                    for _ in stride(from: lane, to: calls, by: 64) {
                        guard try await echo.send(message) == message else { throw StressError("the echo was wrong") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let pipelined = Double(calls) / ((ContinuousClock.now - start).milliseconds / 1000)
        connection.close()
        await connection.waitUntilClosed()
        return (times[times.count / 2], pipelined)
    }

    struct Healthy: Sendable {
        var calls = 0, errors = 0, events = 0
        var longestGap = Duration.zero
        var firstError: String?

        mutating func merge(_ other: Healthy) {
            calls += other.calls
            errors += other.errors
            events += other.events
            longestGap = max(longestGap, other.longestGap)
            if firstError == nil { firstError = other.firstError }
        }
    }

    /// One healthy client: the target's calls one after another and a change-stream listener,
    /// until `stop`.
    static func healthyClient(_ client: Int, target: Target, host: StressHost, until stop: Flag) async throws -> Healthy
    {
        let connection = try await host.connect()
        let events = EventChannel(name: changes, messenger: connection.messenger)
        let counted = LockedCount()
        let listening = Task {
            do {
                for try await _ in events.receiveBroadcastStream(arguments: ["keys": ["tick"]]) { counted.add() }
            } catch {
                counted.fail("listen: \(error)")
            }
        }
        var result = Healthy()
        var last = ContinuousClock.now
        while !stop.isSet {
            do {
                let right = try await target.call(connection, client, result.calls)
                if !right {
                    result.errors += 1
                    if result.firstError == nil { result.firstError = "a wrong answer" }
                }
            } catch {
                result.errors += 1
                if result.firstError == nil { result.firstError = "\(error)" }
                break
            }
            result.calls += 1
            let now = ContinuousClock.now
            result.longestGap = max(result.longestGap, now - last)
            last = now
        }
        listening.cancel()
        let (eventCount, failure) = counted.value
        result.events = eventCount
        if let failure, !stop.isSet {
            result.errors += 1
            if result.firstError == nil { result.firstError = failure }
        }
        connection.close()
        await connection.waitUntilClosed()
        return result
    }

    final class Flag: Sendable {
        private let raised = LockedValue(false)
        func set() { raised.withLock { $0 = true } }
        var isSet: Bool { raised.withLock { $0 } }
    }

    final class LockedCount: Sendable {
        private let state = LockedValue<(Int, String?)>((0, nil))
        func add() { state.withLock { $0.0 += 1 } }
        func fail(_ text: String) { state.withLock { if $0.1 == nil { $0.1 = text } } }
        var value: (Int, String?) { state.withLock { $0 } }
    }
}
