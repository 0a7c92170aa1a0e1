import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeSocket
package import ChannelBridgeStore
import FoundationEssentials

/// An app extension's native side as a process: serves the extension channel, the built-in
/// plugins and the app-group store to any number of client sessions over a Unix socket, until the
/// extension request ends.
///
/// ```swift
/// let host = try await ExtensionHost.start(options: options)   // bound, files copied, share key written
/// let record = await host.run()   // prints "ready <path>", serves, prints record.jsonLine
/// if case .interrupted(let signal) = record.outcome { print("stopped by \(signal)") }
/// ```
///
/// Ending, exactly once, whichever comes first: `exit`/`completeRequest` (completed), `cancel`,
/// the deadline (expired), `interrupt(_:)` or cancelling the task that runs `run()` (interrupted;
/// the executables turn SIGINT/SIGTERM into that cancellation). From that moment every request a session
/// receives is answered with REPLY status 2 (`host is shutting down`), except a further `exit`,
/// `completeRequest` or `cancel`, which gets `REQUEST_ALREADY_COMPLETED`. Once the reply to the
/// call that ended the request is queued, the host stops accepting and removes its socket file,
/// sends GOODBYE `shuttingDown` to every session, waits for the replies still owed (every store
/// write they made is durable by then), tears the plugins down and prints the completion record.
/// The waiting is bounded by `HostOptions.shutdownTimeout`, counted from the request's end: when
/// it passes first (a store write stuck in `flock` or `fsync` holds a reply back), the record
/// says so in `shutdownDeadlinePassed` and `run()` returns without waiting any longer.
public final class ExtensionHost: Sendable {
    /// The options as `start` used them: `dataDirectory` absolute.
    package let options: HostOptions
    /// The socket path as given (or the default), as the ready line shows it.
    public let socketPath: String
    /// The extension request every session shares.
    public let request: ExtensionRequest
    /// The app-group store in the data directory, the one every session's preferences use.
    package let store: AppGroupStore
    private let listener: SocketListener
    private let sessions: SessionTable
    private let output: HostOutput
    private let running = LockedValue(RunState.idle)
    /// With `--isolation session`: the worker processes that serve the sessions.
    private let workers: WorkerPool?

    /// Whether `run()` has been called, and its record once it has returned. A later call waits
    /// for the first one's record.
    private enum RunState {
        case idle
        /// Resumed, each exactly once, with the record when the first call finishes.
        case running(waiters: [CheckedContinuation<CompletionRecord, Never>])
        case finished(CompletionRecord)
    }

    private init(
        options: HostOptions, request: ExtensionRequest, store: AppGroupStore, listener: SocketListener,
        sessions: SessionTable, output: HostOutput, workers: WorkerPool?
    ) {
        self.workers = workers
        self.options = options
        self.socketPath = options.socketPath
        self.request = request
        self.store = store
        self.listener = listener
        self.sessions = sessions
        self.output = output
    }

    /// Checks the options, binds the socket, copies shared files into the first entitled group's
    /// container and writes the share key. A relative `dataDirectory` is made absolute against the
    /// working directory now (without resolving symbolic links), so every path the host hands out
    /// (input items, containers, the share key's file URLs) is absolute. Nothing is printed on
    /// standard output. `plugins` are registered in every session besides the built-in ones (see
    /// `HostPlugins`).
    ///
    /// - Throws: `HostError` (the host exits with `exitStatus`); nothing is left bound, and nothing
    ///   is written to the store unless the failure came from the store itself.
    public static func start(
        options given: HostOptions, output: HostOutput = .process,
        plugins: HostPlugins = HostPlugins()
    ) async throws(HostError) -> ExtensionHost {
        try await start(options: given, output: output, plugins: plugins, workerLaunch: nil)
    }

    /// `start`, for a host executable that can start its own workers (`--isolation session`):
    /// `workerLaunch` is its file and command line.
    static func start(
        options given: HostOptions, output: HostOutput, plugins: HostPlugins,
        workerLaunch: WorkerPool.Launch?
    ) async throws(HostError) -> ExtensionHost {
        let options = {
            var options = given
            options.dataDirectory = AbsolutePath.of(given.dataDirectory)
            return options
        }()
        let catalogue = try plugins.catalogue(addingTo: BuiltInPlugins.catalogue)
        let pluginKeys = try BuiltInPlugins.keys(selecting: options.plugins, in: catalogue)
        let givenItems = try await BlockingThreadPool.fileWork.run { () throws(HostError) -> [InputItem] in
            let items = try InputPreparation.items(from: options)
            try InputPreparation.checkSources(items)
            if let infoPlist = options.infoPlist {
                try ActivationRule.load(infoPlist: infoPlist).check(items)
            }
            return items
        }
        let store = AppGroupStore(dataDirectory: options.dataDirectory)
        let primary: AppGroupPreferences
        do {
            primary = try store.group(options.primaryAppGroup)
        } catch {
            throw HostError(.store, "app group \(options.primaryAppGroup): \(error.message)")
        }
        let container = primary.directory + "/container"
        let hasFiles = givenItems.flatMap(\.attachments).contains { if case .file = $0.content { true } else { false } }
        // The copies' paths are known before anything is copied, so the request is complete
        // before the first session can see it.
        let items = InputPreparation.plannedCopies(givenItems, into: container)

        let sessions = SessionTable()
        let gate = ExtensionRequest.sessionGate(extensionChannel: options.channel)
        let request = ExtensionRequest(inputItems: items.planned, gate: gate)
        let setup = SessionSetup(
            options: options, pluginKeys: pluginKeys, catalogue: catalogue,
            setUpSession: plugins.setUpSession, request: request, store: store,
            sessions: sessions, output: output)
        var listenerOptions = SocketListener.Options()
        listenerOptions.connection = options.sessionConnectionOptions(gate: gate)
        listenerOptions.maxConnections = options.maxConnections
        let workers: WorkerPool?
        if options.isolation == .session {
            guard let workerLaunch else {
                throw HostError(
                    .usage,
                    "--isolation session needs a host executable (ExtensionHostCommand.main), "
                        + "which can start itself again; this host serves its sessions in its own process")
            }
            let pool = WorkerPool(launch: workerLaunch, request: request, sessions: sessions, output: output)
            listenerOptions.serveElsewhere = { fd, _, ended in pool.serve(fd, ended: ended) }
            workers = pool
        } else {
            workers = nil
        }
        let listener: SocketListener
        // Only the default socket's directory is created (for it, nothing else makes one); a
        // directory named with --socket must exist, so that a mistyped one is not made.
        if options.socketPath != SocketPath.defaultPath(), let slash = options.socketPath.lastIndex(of: "/"),
            slash != options.socketPath.startIndex
        {
            let directory = String(options.socketPath[..<slash])
            guard FileCalls.status(directory) != nil else {
                throw HostError(
                    .socket,
                    "cannot listen on \(options.socketPath): there is no directory \(directory); "
                        + "create it first, or choose a socket path in an existing directory")
            }
        }
        do {
            // Bound now, accepting from `run()` on: a client that connects before then waits in the
            // backlog, and no session sees the request before its files are copied.
            listener = try SocketListener(binding: options.socketPath, options: listenerOptions) { connection in
                setup.open(connection)
            }
        } catch {
            throw HostError(.socket, "cannot listen on \(options.socketPath): \(error.message) (\(error.code))")
        }
        let host = ExtensionHost(
            options: options, request: request, store: store, listener: listener,
            sessions: sessions, output: output, workers: workers)
        do {
            if hasFiles {
                let created = try await primary.containerDirectory()
                guard created == container else {
                    throw HostError(
                        .store, "the container of \(options.primaryAppGroup) is \(created), not \(container)")
                }
                let copies = items.copies
                try await BlockingThreadPool.fileWork.run { () throws(HostError) in try InputPreparation.copy(copies) }
            }
        } catch {
            await host.abandon()
            if let error = error as? HostError { throw error }
            throw HostError(
                .store,
                "cannot create the container of app group \(options.primaryAppGroup): "
                    + ((error as? StoreError)?.message ?? String(describing: error)))
        }
        if let shareKey = options.shareKey {
            do {
                try await primary.set(.string(SharePayload.json(for: items.planned)), forKey: shareKey)
            } catch {
                await host.abandon()
                throw HostError(
                    .store,
                    "--share-key \(shareKey): cannot write it in app group "
                        + "\(options.primaryAppGroup): \(error.message)")
            }
        }
        return host
    }

    /// The text of REPLY status 2 for requests that arrive once the request has ended.
    package static let shuttingDownReason = "host is shutting down"

    /// Prints the ready line, serves until the request ends, shuts down as described above and
    /// prints the completion record, which it returns. Sessions wait in the socket's backlog
    /// until this is called.
    ///
    /// Structured: everything the host runs while serving is a child of the calling task, and
    /// cancelling that task interrupts the host: the request ends as `interrupted` with the signal
    /// `cancellationSignal` names at that moment (SIGTERM by default: what a supervisor's stop
    /// means), unless it had already ended; the shutdown then runs in full (owed replies sent,
    /// sessions closed with GOODBYE `shuttingDown`, socket file removed, plugins torn down) and
    /// this returns the record. Once the shutdown timeout has passed, this returns without the
    /// part still waiting (sessions whose replies are owed), which goes on unattended: the one
    /// exception to the structure, so that a stuck store write cannot hold the caller. Call it
    /// once; a further call waits for the first one's record.
    public func run(cancellationSignal: @escaping @Sendable () -> HostSignal = { .sigterm }) async -> CompletionRecord {
        let first = running.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .running(waiters: [])
            return true
        }
        guard first else { return await recordOfFirstRun() }
        let record = await serve(cancellationSignal: cancellationSignal)
        let waiters = running.withLock { state -> [CheckedContinuation<CompletionRecord, Never>] in
            defer { state = .finished(record) }
            if case .running(let waiters) = state { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume(returning: record) }
        return record
    }

    private func recordOfFirstRun() async -> CompletionRecord {
        await withCheckedContinuation { continuation in
            let record = running.withLock { state -> CompletionRecord? in
                switch state {
                case .finished(let record):
                    return record
                case .running(var waiters):
                    waiters.append(continuation)
                    state = .running(waiters: waiters)
                    return nil
                case .idle:
                    preconditionFailure("a further run() before the first")
                }
            }
            if let record { continuation.resume(returning: record) }
        }
    }

    private func serve(cancellationSignal: @escaping @Sendable () -> HostSignal) async -> CompletionRecord {
        workers?.start()
        output.standardOutput("ready \(socketPath)")
        do {
            try listener.startAccepting()
        } catch {
            // Out of threads: nobody can connect, so the request ends now, as a failed start does.
            output.standardError("extension-host: \(error.message)")
            request.end(.cancelled, error: MethodError(code: "FAILED_TO_START", message: error.message))
        }
        let ending = await withTaskGroup(of: Void.self) { [request, options] group -> ExtensionRequest.Ending in
            if let deadline = options.deadline {
                group.addTask {
                    do { try await Task.sleep(for: deadline) } catch { return }
                    request.end(
                        .expired,
                        error: MethodError(
                            code: "EXPIRED",
                            message: "the deadline of \(Self.seconds(deadline)) s passed with neither exit nor cancel"))
                }
            }
            let ending = await withTaskCancellationHandler {
                await request.waitForEnd()
            } onCancel: {
                self.interrupt(cancellationSignal())
            }
            group.cancelAll()
            return ending
        }
        // From here on nothing waits for cancellation: a cancelled run still shuts down in full,
        // or as far as it gets within the shutdown timeout.
        let reason = "\(Self.shuttingDownReason) (\(ending.outcome))"
        let finished = await ShutdownDeadline.run(within: options.shutdownTimeout) { [self] in
            if let reply = ending.endingReply { await reply.wait() }
            await shutDown(reason: reason)
        }
        // Finished: every owed reply is out, so every write a session made has been acknowledged
        // and is durable, and the store has nothing left to flush. Not finished: a reply still
        // owed (a store write stuck in `flock` or `fsync`) is not waited for; its write was never
        // acknowledged, and every acknowledged one is durable, as after a kill.
        var record = request.completionRecord ?? CompletionRecord(outcome: ending.outcome)
        if !finished {
            let passed = await abandonShutdown(reason: reason)
            output.standardError(passed.diagnostic)
            record.shutdownDeadlinePassed = passed
        }
        output.standardOutput(record.jsonLine)
        return record
    }

    /// After the shutdown timeout: does what the orderly shutdown may not have reached and waits
    /// for nothing a store write can hold up (the accepting thread ends as soon as the listening
    /// socket is shut down). Sessions still open stay open, already told GOODBYE, until their
    /// replies are sent (or the process ends).
    private func abandonShutdown(reason: String) async -> ShutdownDeadlinePassed {
        listener.close()
        await listener.waitUntilClosed()
        let live = sessions.all
        var unfinished = 0
        for session in live {
            session.connection.close(code: .shuttingDown, reason: reason)
            unfinished += session.connection.messenger.owedReplyCount
        }
        // A worker's session counts its own unfinished calls: asked, briefly, before it is killed.
        unfinished += await workers?.unfinishedCalls() ?? 0
        let workerSessions = await workers?.killAll() ?? 0
        return ShutdownDeadlinePassed(
            timeout: options.shutdownTimeout, unfinishedCalls: unfinished,
            openSessions: live.count + workerSessions)
    }

    /// Ends the request as interrupted by `signal`, unless it has already ended.
    public func interrupt(_ signal: HostSignal) {
        request.end(
            .interrupted(signal),
            error: MethodError(
                code: signal.name, message: "the host was interrupted by \(signal.name)"))
    }

    /// The number of sessions now connected.
    package var sessionCount: Int { sessions.count + (workers?.sessionCount ?? 0) }

    private func shutDown(reason: String) async {
        listener.close()
        await listener.waitUntilClosed()
        // No session can be added now: the accepting thread has ended.
        if let workers {
            await workers.shutDown(reason: reason, outcome: request.outcome ?? .interrupted(.sigterm))
        }
        let live = sessions.all
        for session in live {
            session.connection.close(code: .shuttingDown, reason: reason)
        }
        for session in live {
            await session.connection.waitUntilClosed()
            await session.tearDown()
        }
    }

    /// Undoes a start that failed after binding.
    private func abandon() async {
        request.end(.cancelled, error: MethodError(code: "FAILED_TO_START"))
        await shutDown(reason: "\(Self.shuttingDownReason) (failed to start)")
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
