import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation

/// The channels one peer session serves.
///
/// Method channel `peer/methods` (Standard codec):
/// - `echo` → the arguments; `delayedEcho` [value, ms] → value after ms milliseconds
/// - `arrival` → how many calls to `arrival` reached this session so far, counted before the
///   handler's first suspension, i.e. in arrival order
/// - `hang` → never answers; `pid` → this process's id
/// - `fail` → error envelope `PEER_FAILED`; anything else → not implemented
/// - `callBack` {method, arguments} → calls `method` on the caller's `test/methods` channel and
///   returns its result (a `MethodError` from there is passed on)
/// - `eventLog` {atLeast?} → [[call, arguments]…]: the `listen` / `cancel` calls `peer/events` got,
///   answered once there are at least `atLeast` of them (at once without it)
/// - `listenCollect` {channel, arguments, max} → listens to the caller's event channel and
///   returns its events ([["success", v] | ["error", code, message, details]…]) after the end of
///   stream or `max` events (then cancels)
/// - `listenAndHold` {channel, arguments} → listens and returns the first event, keeping the
///   stream open until the session ends
///
/// Event channel `peer/events`: `listen` {count, errorAt?, end?, tick?} sends int events
/// 0..<count, an error event `TICK_ERROR` (details: the index) before event `errorAt`, then the
/// end of stream when `end` is true; with `tick` (ms) it keeps sending events every `tick` ms
/// until cancelled.
enum PeerSession {
    static func serve(_ connection: SocketConnection) {
        let state = SessionState()
        let methods = MethodChannel(name: "peer/methods", messenger: connection.messenger)
        let testMethods = MethodChannel(name: "test/methods", messenger: connection.messenger)
        methods.setMethodCallHandler { call in
            try await handle(call, state: state, connection: connection, testMethods: testMethods)
        }
        EventChannel(name: "peer/events", messenger: connection.messenger).setStreamHandler(Ticks(state: state))
        // Held for the session's lifetime: streams this side listens to.
        connection.onClose { _ in state.holds.withLock { $0.removeAll() } }
    }

    private static func handle(
        _ call: MethodCall, state: SessionState, connection: SocketConnection,
        testMethods: MethodChannel
    ) async throws -> StandardValue {
        switch call.method {
        case "arrival":
            return .int(
                state.arrivals.withLock { count in
                    count += 1
                    return count
                })
        case "echo":
            return call.arguments
        case "delayedEcho":
            guard case .list(let pair) = call.arguments, pair.count == 2, let ms = pair[1].intValue else {
                throw MethodError(code: "BAD_ARGS", message: "delayedEcho takes [value, ms]")
            }
            if ms > 0 { try await Task.sleep(for: .milliseconds(ms)) } else { await Task.yield() }
            return pair[0]
        case "hang":
            try await untilCancelled()
            return .null
        case "pid":
            return .int(getpid())
        case "fail":
            throw MethodError(code: "PEER_FAILED", message: "asked to fail", details: call.arguments)
        case "callBack":
            guard case .string(let method)? = call.arguments[.string("method")] else {
                throw MethodError(code: "BAD_ARGS", message: "callBack takes {method, arguments}")
            }
            return try await testMethods.invokeMethod(method, arguments: call.arguments[.string("arguments")] ?? .null)
        case "eventLog":
            return .list(await state.eventLog(atLeast: call.arguments[.string("atLeast")]?.intValue ?? 0))
        case "listenCollect":
            let (channel, arguments) = try streamTarget(call, connection: connection)
            let max = call.arguments[.string("max")]?.intValue ?? Int.max
            var events: [StandardValue] = []
            for try await event in channel.receiveBroadcastStream(arguments: arguments) {
                events.append(describe(event))
                if events.count >= max { break }
            }
            return .list(events)
        case "listenAndHold":
            let (channel, arguments) = try streamTarget(call, connection: connection)
            let stream = channel.receiveBroadcastStream(arguments: arguments)
            state.holds.withLock { $0.append(stream) }
            var iterator = stream.makeAsyncIterator()
            guard let first = try await iterator.next() else { return .null }
            return describe(first)
        default:
            throw MethodNotImplemented()
        }
    }

    private static func streamTarget(
        _ call: MethodCall, connection: SocketConnection
    ) throws -> (EventChannel, StandardValue) {
        guard case .string(let name)? = call.arguments[.string("channel")] else {
            throw MethodError(code: "BAD_ARGS", message: "\(call.method) takes {channel, arguments}")
        }
        return (
            EventChannel(name: name, messenger: connection.messenger), call.arguments[.string("arguments")] ?? .null
        )
    }

    private static func describe(_ event: EventChannel.Event) -> StandardValue {
        switch event {
        case .success(let value):
            return .list([.string("success"), value])
        case .error(let error):
            return .list([
                .string("error"), .string(error.code), error.message.map(StandardValue.string) ?? .null,
                error.details,
            ])
        }
    }
}

/// The calls `peer/events` got, and the `eventLog` requests waiting for more of them.
struct EventLog {
    var entries: [StandardValue] = []
    var waiters: [(count: Int, continuation: CheckedContinuation<[StandardValue], Never>)] = []
}

/// What one session remembers.
final class SessionState: Sendable {
    /// Appends to the log and answers every `eventLog` request the log now satisfies.
    func record(_ entry: StandardValue) {
        let (ready, entries) = log.withLock { log in
            log.entries.append(entry)
            let count = log.entries.count
            let ready = log.waiters.filter { $0.count <= count }.map(\.continuation)
            log.waiters.removeAll { $0.count <= count }
            return (ready, log.entries)
        }
        for continuation in ready { continuation.resume(returning: entries) }
    }

    /// The log once it has at least `count` entries. A request still waiting when the session
    /// ends is ended with the connection, like any other pending call of the test's.
    func eventLog(atLeast count: Int) async -> [StandardValue] {
        await withCheckedContinuation { continuation in
            let now: [StandardValue]? = log.withLock { log in
                if log.entries.count >= count { return log.entries }
                log.waiters.append((count, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    let arrivals = LockedValue(0)
    private let log = LockedValue(EventLog())
    let holds = LockedValue<[AsyncThrowingStream<EventChannel.Event, any Error>]>([])
}

/// The owner side of `peer/events`.
struct Ticks: StreamHandler {
    let state: SessionState

    func onListen(arguments: StandardValue, events: EventSink) async throws {
        state.record(.list([.string("listen"), arguments]))
        let count = arguments[.string("count")]?.intValue ?? 0
        let errorAt = arguments[.string("errorAt")]?.intValue
        let end = arguments[.string("end")] == .bool(true)
        let tick = arguments[.string("tick")]?.intValue
        if count < 0 { throw MethodError(code: "BAD_ARGS", message: "count must not be negative") }
        Task {
            for n in 0..<count {
                if n == errorAt {
                    events.error(MethodError(code: "TICK_ERROR", message: "error before \(n)", details: .int(n)))
                }
                events.success(.int(n))
            }
            if let tick {
                var n = count
                while events.isActive {
                    events.success(.int(n))
                    n += 1
                    try? await Task.sleep(for: .milliseconds(tick))
                }
            }
            if end { events.endOfStream() }
        }
    }

    func onCancel(arguments: StandardValue) async throws {
        state.record(.list([.string("cancel"), arguments]))
    }
}

extension StandardValue {
    var intValue: Int? {
        switch self {
        case .int32(let n): Int(n)
        case .int64(let n): Int(n)
        default: nil
        }
    }
}
