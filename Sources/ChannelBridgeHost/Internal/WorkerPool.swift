import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket

/// The worker processes of a host with `--isolation session` (Protocol/extension-host.md §1.8):
/// a pool of idle workers started ahead of time, each given one accepted connection, the control
/// channel through which they reach the request, and their reaping.
///
/// Idle workers are started by a thread of the pool's own (the spawner), never on the accepting
/// thread, so that a replacement's `posix_spawn` does not delay the next accept; the spawner also
/// lets surplus idle workers go when `WorkerIdlePolicy` shrinks its target.
///
/// Bounds: at most the listener's connection limit busy plus `WorkerIdlePolicy.maximum` idle; after
/// `crashBudget` crashes within `crashWindow`, new connections are refused until the oldest is
/// out of the window; a worker whose control channel has closed is given `endGrace` to exit before
/// it is killed. Every worker started is reaped (`waitpid`) before `shutDown` or `killAll` returns.
final class WorkerPool: Sendable {
    /// How to start a worker: the executable's file and its command line, the program's name first.
    struct Launch: Sendable {
        var executable: String
        var arguments: [String]
    }

    static let crashBudget = 100
    static let crashWindow: Duration = .seconds(60)
    static let endGrace: Int32 = 2000
    /// How long the host waits, past the shutdown deadline, for the workers' counts of their
    /// unfinished calls.
    static let unfinishedCallsWait: Duration = .milliseconds(250)

    private struct State {
        var workers: [Int32: WorkerProcess] = [:]
        var idle: [WorkerProcess] = []
        /// Workers (by pid) that have said `ready`: started, and their session rehearsed.
        var started: Set<Int32> = []
        var policy = WorkerIdlePolicy()
        var closed = false
        var crashes: [ContinuousClock.Instant] = []
        var reapedWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func crashRefusal(now: ContinuousClock.Instant) -> String? {
            crashes.removeAll { now - $0 > WorkerPool.crashWindow }
            guard crashes.count >= WorkerPool.crashBudget else { return nil }
            return "sessions are crashing: \(crashes.count) workers died in the last 60 s"
        }
    }

    private let launch: Launch
    private let request: ExtensionRequest
    private let sessions: SessionTable
    private let output: HostOutput
    private let state = LockedValue(State())
    /// Wakes the spawner: a worker was taken or reaped, or the pool closed.
    private let spawnerWake = TimedSemaphore()

    init(launch: Launch, request: ExtensionRequest, sessions: SessionTable, output: HostOutput) {
        self.launch = launch
        self.request = request
        self.sessions = sessions
        self.output = output
    }

    /// Sessions served by workers now.
    var sessionCount: Int { state.withLock { $0.workers.values.filter { $0.session != nil }.count } }

    /// Workers running now, idle or busy.
    var workerCount: Int { state.withLock { $0.workers.count } }

    /// Starts the spawner, which starts the idle workers.
    func start() {
        DetachedThread.start(name: "cb worker spawner") { [self] in runSpawner() }
    }

    /// Hands the accepted `fd` to a worker (on the accepting thread): `nil` when a worker took it
    /// (the host's copy is closed then), else the reason to refuse the client.
    func serve(_ fd: Int32, ended: @escaping @Sendable () -> Void) -> String? {
        let id = sessions.nextID()
        for _ in 0..<3 {
            let taken = state.withLock { state -> Result<WorkerProcess?, Refusal> in
                if state.closed { return .failure(Refusal(ExtensionHost.shuttingDownReason)) }
                let now = ContinuousClock.now
                if let refusal = state.crashRefusal(now: now) { return .failure(Refusal(refusal)) }
                // A started worker first; else the oldest, which is the nearest to started.
                let index = state.idle.firstIndex { state.started.contains($0.pid) } ?? state.idle.indices.first
                if index == nil || !state.started.contains(state.idle[index!].pid) { state.policy.shortage(at: now) }
                return .success(index.map { state.idle.remove(at: $0) })
            }
            let worker: WorkerProcess
            switch taken {
            case .failure(let refusal): return refusal.reason
            case .success(let idle?): worker = idle
            case .success(nil):
                switch spawn(idle: false) {
                case .success(let started): worker = started
                case .failure(let refusal): return refusal.reason
                }
            }
            worker.state.withLock {
                $0.session = id
                $0.ended = ended
            }
            if DescriptorPassing.send(fd, tag: UInt64(id), over: worker.handOff) == 0 {
                Syscalls.closeDescriptor(fd)
                spawnerWake.post()
                return nil
            }
            // The worker died while idle; its reaper does the rest. Try another.
            worker.state.withLock {
                $0.session = nil
                $0.ended = nil
            }
        }
        return "no worker could take the connection"
    }

    private struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The spawner's loop, until the pool closes: once woken (or once a second, for the policy's
    /// shrinking), lets idle workers above the policy's target go (their hand-off socket ends and
    /// they exit) and starts workers until the target are idle, unless the pool is crashing.
    private func runSpawner() {
        while true {
            _ = spawnerWake.wait(seconds: 1)
            let (missing, surplus, closed) = state.withLock { state -> (Int, [WorkerProcess], Bool) in
                if state.closed { return (0, [], true) }
                let now = ContinuousClock.now
                state.policy.shrinkIfQuiet(at: now)
                var surplus: [WorkerProcess] = []
                while state.idle.count > state.policy.target { surplus.append(state.idle.removeLast()) }
                let crashing = state.crashRefusal(now: now) != nil
                return (crashing ? 0 : max(0, state.policy.target - state.idle.count), surplus, false)
            }
            for worker in surplus { DescriptorPassing.endWriting(worker.handOff) }
            if closed { return }
            for _ in 0..<missing {
                if case .failure(let refusal) = spawn(idle: true) {
                    output.standardError("extension-host: \(refusal.reason)")
                    break
                }
            }
        }
    }

    /// Starts a worker: its two socket pairs, the process, and the host's end of its control
    /// channel. With `idle`, it joins the idle workers.
    private func spawn(idle: Bool) -> Result<WorkerProcess, Refusal> {
        guard let control = DescriptorPassing.socketPair() else {
            return .failure(
                Refusal("cannot start a worker: socketpair failed: \(Syscalls.errorText(Syscalls.lastError))"))
        }
        guard let handOff = DescriptorPassing.socketPair() else {
            let error = Syscalls.lastError
            Syscalls.closeDescriptor(control.0)
            Syscalls.closeDescriptor(control.1)
            return .failure(Refusal("cannot start a worker: socketpair failed: \(Syscalls.errorText(error))"))
        }
        let started = ProcessSpawn.start(
            path: launch.executable, arguments: launch.arguments,
            environment: WorkerChannel.processWorkerEnvironment,
            descriptors: [
                (control.1, WorkerChannel.controlDescriptor), (handOff.1, WorkerChannel.handOffDescriptor),
            ])
        Syscalls.closeDescriptor(control.1)
        Syscalls.closeDescriptor(handOff.1)
        let pid: Int32
        switch started {
        case .success(let started): pid = started
        case .failure(let failure):
            Syscalls.closeDescriptor(control.0)
            Syscalls.closeDescriptor(handOff.0)
            return .failure(Refusal("cannot start a worker (\(launch.executable)): \(failure.message)"))
        }
        let worker = WorkerProcess(pid: pid, handOff: handOff.0)
        // Started as the pool closed: it is let go at once (it exits at the end of its hand-off
        // socket), so that no idle worker outlives the shutdown's list of them.
        let letGo = state.withLock { state -> Bool in
            state.workers[pid] = worker
            if idle && !state.closed { state.idle.append(worker) }
            return idle && state.closed
        }
        if letGo { DescriptorPassing.endWriting(handOff.0) }
        do {
            let connection = try SocketConnection.adopt(
                fd: control.0, role: .host, path: "worker \(pid)",
                options: WorkerChannel.connectionOptions(name: "extension-host worker control")
            ) { connection in
                let channel = MethodChannel(name: WorkerChannel.name, messenger: connection.messenger)
                channel.setMethodCallHandler { [self] call in try answer(call, from: worker) }
                worker.state.withLock { $0.control = channel }
                connection.onClose { [self] _ in reap(worker) }
            }
            _ = connection
        } catch {
            // No control channel: the worker sees its end of file and exits; reap it.
            reap(worker)
        }
        return .success(worker)
    }

    /// A worker's calls to the host.
    private func answer(_ call: MethodCall, from worker: WorkerProcess) throws -> StandardValue {
        switch call.method {
        case "start":
            return ["inputItems": .list(request.inputItems.map(\.standardValue))]
        case "ready":
            state.withLock { _ = $0.started.insert(worker.pid) }
            return .null
        case "end":
            guard let outcome = WorkerChannel.outcome(call.arguments["outcome"]) else {
                throw MethodError(code: "INVALID_ARGUMENTS", message: "end: no outcome")
            }
            let returned = call.arguments["hasReturnedItems"]?.boolValue == true ? call.arguments["returnedItems"] : nil
            let replied = OneShotSignal()
            if let earlier = request.end(
                outcome, returnedItems: returned, error: WorkerChannel.error(call.arguments["error"]),
                endingReply: replied)
            {
                return .string(earlier.description)
            }
            let died = worker.state.withLock { state -> Bool in
                state.endingReply = replied
                return state.control == nil
            }
            if died { replied.raise() }
            return .null
        case "endingReplied":
            worker.state.withLock { $0.endingReply }?.raise()
            return .null
        case "openURL":
            guard let url = call.arguments["url"]?.stringValue, let opened = call.arguments["opened"]?.boolValue else {
                throw MethodError(code: "INVALID_ARGUMENTS", message: "openURL: url and opened are needed")
            }
            request.recordOpenedURL(OpenedURL(url: url, opened: opened))
            return .null
        default:
            throw MethodNotImplemented()
        }
    }

    /// Once a worker's control channel has closed: waits for the process to end (killing it after
    /// `endGrace`), reaps it, reads its crash report, logs a crash, and frees its session's place.
    private func reap(_ worker: WorkerProcess) {
        DetachedThread.start(name: "cb reap \(worker.pid)") { [self] in
            let (end, killedLate) = ProcessSpawn.waitForEnd(of: worker.pid, killAfter: Self.endGrace)
            let report = String(decoding: DescriptorPassing.readAvailable(worker.handOff), as: UTF8.self)
                .split(separator: "\n").first.map(String.init)
            Syscalls.closeDescriptor(worker.handOff)
            let (session, ended, endingReply, killed) = worker.state.withLock { state in
                defer {
                    state.control = nil
                    state.ended = nil
                }
                return (state.session, state.ended, state.endingReply, state.killedByHost)
            }
            // A report line means the worker was dying by a fatal signal, whatever ended it.
            let crashed: Bool
            switch end {
            case _ where report != nil: crashed = true
            case .signalled: crashed = !killed && !killedLate
            case .exited(let status): crashed = status != 0
            }
            let who = session.map { "[session \($0)] the session's worker" } ?? "an idle worker"
            if crashed {
                output.standardError("extension-host: \(who) (pid \(worker.pid)) \(report ?? end.description)")
            } else if killedLate {
                output.standardError(
                    "extension-host: \(who) (pid \(worker.pid)) did not exit within \(Self.endGrace / 1000) s "
                        + "of its session's end; killed")
            }
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.workers[worker.pid] = nil
                state.started.remove(worker.pid)
                state.idle.removeAll { $0 === worker }
                if crashed { state.crashes.append(.now) }
                guard state.workers.isEmpty else { return [] }
                defer { state.reapedWaiters = [] }
                return state.reapedWaiters
            }
            endingReply?.raise()
            ended?()
            for waiter in waiters { waiter.resume() }
            spawnerWake.post()
        }
    }

    /// §1.4 steps 4 and 5 for the workers: no more hand-offs; idle workers are told to exit (their
    /// hand-off socket ends), busy ones to close their session with GOODBYE `shuttingDown` and
    /// `reason`; then waits until every worker has been reaped.
    func shutDown(reason: String, outcome: HostOutcome) async {
        let (idle, busy) = state.withLock { state -> ([WorkerProcess], [WorkerProcess]) in
            state.closed = true
            defer { state.idle = [] }
            let idle = state.idle
            return (idle, state.workers.values.filter { worker in !idle.contains { $0 === worker } })
        }
        spawnerWake.post()
        for worker in idle { DescriptorPassing.endWriting(worker.handOff) }
        for worker in busy {
            guard let control = worker.state.withLock({ $0.control }) else { continue }
            Task {
                _ = try? await control.invokeMethod(
                    "shutDown", arguments: ["reason": .string(reason), "outcome": WorkerChannel.encode(outcome)])
            }
        }
        await waitUntilReaped()
    }

    /// At the shutdown deadline, before `killAll`: the calls the busy workers' sessions still owe
    /// their clients, as each worker counts them when asked over its control channel. A worker
    /// that does not answer within `unfinishedCallsWait` adds none.
    func unfinishedCalls() async -> Int {
        let live = state.withLock { Array($0.workers.values) }
        let controls = live.compactMap { worker in worker.state.withLock { $0.session == nil ? nil : $0.control } }
        // In a task of its own: a host ended by a signal runs its shutdown in a cancelled task, and
        // the calls would inherit that cancellation and end before they were sent.
        return await Task {
            await withTaskGroup(of: Int.self) { group in
                for control in controls {
                    group.addTask {
                        let answer = try? await control.invokeMethod(
                            "unfinishedCalls", timeout: Self.unfinishedCallsWait)
                        return answer?.intValue ?? 0
                    }
                }
                return await group.reduce(0, +)
            }
        }.value
    }

    /// At the shutdown deadline: kills every worker still running and waits until each has been
    /// reaped. Returns how many were serving a session.
    func killAll() async -> Int {
        let live = state.withLock { state -> [WorkerProcess] in
            state.closed = true
            return Array(state.workers.values)
        }
        spawnerWake.post()
        var serving = 0
        for worker in live {
            let session = worker.state.withLock { state -> Int? in
                state.killedByHost = true
                return state.session
            }
            if session != nil { serving += 1 }
            ProcessSpawn.kill(worker.pid)
        }
        await waitUntilReaped()
        return serving
    }

    private func waitUntilReaped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.workers.isEmpty { return true }
                state.reapedWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
