import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport

/// Runs concurrent sessions against a supervised host and records their history: workers that
/// pipeline windows of 1–16 calls (sets, removes, reads, appends, takes with request ids),
/// listeners that listen and then cancel or drop their connection, and a killer that SIGKILLs
/// and restarts the host as the run progresses. Choices come from `seed`; thread timing does not.
struct StoreHistoryWorkload: Sendable {
    var seed: UInt64
    var workers = 4
    var keysPerWorker = 6
    /// Rounds (windows) per worker; `seconds`, when set, runs by time instead.
    var rounds = 150
    var seconds: Double?
    var listeners = 2
    var kills = 2

    static let listKey = "itemList"
    static let appGroup = "group.history"

    struct Result: Sendable {
        var history: StoreHistory
        var finalList: [String]
        var kills: Int
        var listens: Int
        /// Listens that failed other than by their connection ending.
        var listenerFailures: Int
    }

    /// Runs the workload, recording into `history` (the caller's, so that it can tell what was
    /// still pending if the run hangs).
    func run(_ directory: TestDirectory, into history: StoreHistory) async throws -> Result {
        let supervisor = HostSupervisor(directory, arguments: ["--app-group", Self.appGroup])
        history.phase("main", "starting the host")
        try await supervisor.start()
        let progress = Progress()
        let stop = Flag()
        let started = ContinuousClock.now
        let listens = Counter()
        let listenerFailures = Counter()
        let finishedWorkers = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try await runWorker(worker, supervisor, history, progress, started: started)
                    // The last worker to end stops the rest: the listeners, the killer, and any
                    // wait for another host (the killer kills only while workers run).
                    if finishedWorkers.add(1) == workers {
                        stop.raise()
                        progress.finish()
                        supervisor.finish()
                    }
                }
            }
            for listener in 0..<listeners {
                group.addTask {
                    await runListener(listener, supervisor, stop, listens, listenerFailures, history)
                    history.phase("listener \(listener)", "done")
                }
            }
            group.addTask {
                // Kills spread over the run: after each share of the workers' expected operations.
                let expected = workers * rounds * 8
                for kill in 0..<kills {
                    history.phase("killer", "waiting to kill #\(kill)")
                    await progress.waitFor(expected * (kill + 1) / (kills + 1))
                    if stop.isRaised { break }
                    history.phase("killer", "killing #\(kill)")
                    try await supervisor.killAndRestart()
                }
                history.phase("killer", "done")
            }
            try await group.waitForAll()
        }
        history.phase("main", "reading the final list")
        // A host is up (the killer restarts the one it kills before it ends).
        guard let (connection, _) = await supervisor.connect(after: 0) else { throw SupervisorFinished() }
        let list = try await MethodChannel(name: HostTesting.prefsChannel, messenger: connection.messenger)
            .invokeMethod("get", arguments: ["key": .string(Self.listKey)])
        connection.close()
        history.phase("main", "stopping the host")
        await supervisor.stop()
        let finalList = list.listValue?.compactMap(\.stringValue) ?? []
        return Result(
            history: history, finalList: finalList, kills: supervisor.kills, listens: listens.value,
            listenerFailures: listenerFailures.value)
    }

    private func runWorker(
        _ worker: Int, _ supervisor: HostSupervisor, _ history: StoreHistory, _ progress: Progress,
        started: ContinuousClock.Instant
    ) async throws {
        var random = SeededGenerator(seed: seed &+ UInt64(worker) &* 0x9E37_79B9)
        history.phase("worker \(worker)", "connecting")
        guard var (connection, generation) = await supervisor.connect(after: 0) else { throw SupervisorFinished() }
        var session = 0
        var position = 0
        var round = 0
        func more() -> Bool {
            if let seconds { return ContinuousClock.now - started < .seconds(seconds) }
            return round < rounds
        }
        while more() {
            round += 1
            history.phase("worker \(worker)", "round \(round) on host \(generation)")
            let channel = MethodChannel(name: HostTesting.prefsChannel, messenger: connection.messenger)
            // A sliding window: the next call is sent as soon as the oldest in flight is answered,
            // so requests keep arriving while earlier ones are being acknowledged.
            let window = Int.random(in: 1...16, using: &random)
            let count = window * Int.random(in: 1...4, using: &random)
            var inFlight: [(index: Int, kind: StoreHistory.Kind, task: Task<StandardValue, any Error>)] = []
            var connectionEnded = false
            var retakes: [(index: Int, kind: StoreHistory.Kind)] = []
            func settle(_ call: (index: Int, kind: StoreHistory.Kind, task: Task<StandardValue, any Error>)) async {
                do {
                    let value = try await call.task.value
                    history.complete(call.index, Self.outcome(of: value, for: call.kind))
                } catch let error as ChannelError where Self.endsTheConnection(error) {
                    connectionEnded = true
                    if case .take = call.kind {
                        retakes.append((call.index, call.kind))
                    } else {
                        history.complete(call.index, .unknown)
                    }
                } catch {
                    history.complete(call.index, .failed("\(error)"))
                }
            }
            var sent = 0
            while sent < count && !connectionEnded {
                if inFlight.count == window { await settle(inFlight.removeFirst()) }
                if connectionEnded { break }
                let kind = nextKind(worker, position, &random)
                let (method, arguments) = Self.call(for: kind)
                let index = history.invoke(worker: worker, session: session, position: position, kind)
                position += 1
                sent += 1
                // Started in program order: each request is sent before the next call starts.
                let task = Task.immediate { try await channel.invokeMethod(method, arguments: arguments) }
                inFlight.append((index, kind, task))
            }
            for call in inFlight { await settle(call) }
            progress.add(sent)
            guard connectionEnded else { continue }
            connection.close()
            // A take whose reply was lost is sent again with its request id, as clients do.
            var pending = retakes
            while true {
                history.phase("worker \(worker)", "reconnecting after host \(generation)")
                guard let next = await supervisor.connect(after: generation) else { throw SupervisorFinished() }
                (connection, generation) = next
                session += 1
                let channel = MethodChannel(name: HostTesting.prefsChannel, messenger: connection.messenger)
                var stillPending: [(index: Int, kind: StoreHistory.Kind)] = []
                for retake in pending {
                    let (method, arguments) = Self.call(for: retake.kind)
                    do {
                        let value = try await channel.invokeMethod(method, arguments: arguments)
                        history.complete(retake.index, Self.outcome(of: value, for: retake.kind))
                    } catch let error as ChannelError where Self.endsTheConnection(error) {
                        stillPending.append(retake)
                    } catch {
                        history.complete(retake.index, .failed("\(error)"))
                    }
                }
                if stillPending.isEmpty { break }
                pending = stillPending
            }
        }
        history.phase("worker \(worker)", "final reads")
        // Final reads of every key of the worker, in a session of their own.
        while true {
            let channel = MethodChannel(name: HostTesting.prefsChannel, messenger: connection.messenger)
            var ended = false
            for key in 0..<keysPerWorker {
                let kind = StoreHistory.Kind.read(key: "w\(worker)-k\(key)")
                let index = history.invoke(worker: worker, session: session, position: position, kind)
                position += 1
                do {
                    history.complete(
                        index,
                        Self.outcome(
                            of: try await channel.invokeMethod(
                                "getString", arguments: ["key": .string("w\(worker)-k\(key)")]), for: kind))
                } catch {
                    history.complete(index, .unknown)
                    ended = true
                }
            }
            if !ended { break }
            guard let next = await supervisor.connect(after: generation) else { throw SupervisorFinished() }
            (connection, generation) = next
            session += 1
        }
        connection.close()
        history.phase("worker \(worker)", "done")
    }

    private func nextKind(_ worker: Int, _ position: Int, _ random: inout SeededGenerator) -> StoreHistory.Kind {
        let key = "w\(worker)-k\(Int.random(in: 0..<keysPerWorker, using: &random))"
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<35: return .write(key: key, value: "w\(worker)#\(position)")
        case 35..<45: return .write(key: key, value: nil)
        case 45..<70: return .read(key: key)
        case 70..<90: return .append(item: "w\(worker):\(position)")
        default: return .take(requestID: "w\(worker)-take-\(position)-\(seed)")
        }
    }

    /// Whether a call or listen failed because its connection ended: closed, or reset under it
    /// when the host was killed (a socket error rather than an end of file).
    static func endsTheConnection(_ error: ChannelError) -> Bool {
        error.code == .connectionClosed || error.messengerError?.code == .transport
    }

    private static func call(for kind: StoreHistory.Kind) -> (String, StandardValue) {
        switch kind {
        case .write(let key, let value?): ("setString", ["key": .string(key), "value": .string(value)])
        case .write(let key, nil): ("remove", ["key": .string(key)])
        case .read(let key): ("getString", ["key": .string(key)])
        case .append(let item): ("appendToList", ["key": .string(listKey), "values": [.string(item)]])
        case .take(let id): ("take", ["key": .string(listKey), "requestId": .string(id)])
        }
    }

    private static func outcome(of value: StandardValue, for kind: StoreHistory.Kind) -> StoreHistory.Outcome {
        switch kind {
        case .read: .ok(read: value.stringValue, items: [])
        case .take: .ok(read: nil, items: value.listValue?.compactMap(\.stringValue) ?? [])
        default: .ok(read: nil, items: [])
        }
    }

    /// Listens, takes a few events, then cancels the stream or drops the whole connection, again
    /// and again until the workers are done.
    private func runListener(
        _ listener: Int, _ supervisor: HostSupervisor, _ stop: Flag,
        _ listens: Counter, _ listenerFailures: Counter, _ history: StoreHistory
    ) async {
        var random = SeededGenerator(seed: seed &+ 0xABCD &+ UInt64(listener))
        var generation = 0
        while !stop.isRaised {
            history.phase("listener \(listener)", "connecting after host \(generation)")
            guard let (connection, current) = await supervisor.connect(after: generation) else { return }
            history.phase("listener \(listener)", "listening on host \(current)")
            generation = current - 1
            let events = EventChannel(name: "shared_preference_app_group/changes", messenger: connection.messenger)
            let wanted = Int.random(in: 0...3, using: &random)
            let drop = Bool.random(using: &random)
            // Once the workers are done no event may come: the stop ends the listen.
            let token = stop.onRaise { connection.close() }
            defer { stop.remove(token) }
            do {
                var taken = 0
                for try await _ in events.receiveBroadcastStream(arguments: .null) {
                    taken += 1
                    if taken >= wanted || stop.isRaised { break }
                }
                listens.add(1)
            } catch let error as ChannelError where Self.endsTheConnection(error) {
                // The host died under the listener (or the stop closed it): connect to the next one.
                generation = current
            } catch {
                history.phase("listener \(listener)", "failed: \(error)")
                if listenerFailures.add(1) <= 5 { history.note("listener \(listener) on host \(current): \(error)") }
            }
            if drop { connection.close() } else { connection.close(reason: "listener done") }
        }
    }
}

/// Completed operations, counted for the killer to wait on.
final class Progress: Sendable {
    private struct State {
        var count = 0
        var finished = false
        var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    func add(_ count: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += count
            let ready = state.waiters.filter { $0.target <= state.count }.map(\.continuation)
            state.waiters.removeAll { $0.target <= state.count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func finish() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    func waitFor(_ target: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.finished || state.count >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A flag raised once, read by any task; what was registered with `onRaise` runs when it is
/// raised (at once, if it is already).
final class Flag: Sendable {
    private struct State {
        var raised = false
        var actions: [Int: @Sendable () -> Void] = [:]
        var next = 0
    }

    private let state = LockedValue(State())
    var isRaised: Bool { state.withLock { $0.raised } }

    func raise() {
        let actions = state.withLock { state in
            state.raised = true
            defer { state.actions = [:] }
            return Array(state.actions.values)
        }
        for action in actions { action() }
    }

    /// Registers `action`; returns its token for `remove`.
    func onRaise(_ action: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { state -> Int? in
            guard !state.raised else { return nil }
            state.next += 1
            state.actions[state.next] = action
            return state.next
        }
        if token == nil { action() }
        return token
    }

    func remove(_ token: Int?) {
        guard let token else { return }
        _ = state.withLock { $0.actions.removeValue(forKey: token) }
    }
}

/// A count shared by tasks.
final class Counter: Sendable {
    private let count = LockedValue(0)
    var value: Int { count.withLock { $0 } }

    /// Adds `amount`; returns the new count.
    @discardableResult
    func add(_ amount: Int) -> Int {
        count.withLock {
            $0 += amount; return $0
        }
    }
}

/// A worker needed a host after the run was finished: the run's own bookkeeping went wrong.
struct SupervisorFinished: Error {}
