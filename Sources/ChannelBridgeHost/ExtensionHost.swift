import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeSocket
public import ChannelBridgeStore
import Dispatch
import FoundationEssentials

/// An app extension's native side as a process: serves the extension channel, the built-in
/// plugins and the app-group store to any number of client sessions over a Unix socket, until the
/// extension request ends.
///
/// ```swift
/// let host = try await ExtensionHost.start(options: options)   // bound, files copied, share key written
/// let record = await host.run()                                // prints "ready <path>" ... the record
/// exit(record.outcome.exitStatus)
/// ```
///
/// Ending, exactly once, whichever comes first: `exit`/`completeRequest` (completed), `cancel`,
/// the deadline (expired), `interrupt(_:)` (a signal). From that moment every request a session
/// receives is answered with REPLY status 2 (`host is shutting down`), except a further `exit`,
/// `completeRequest` or `cancel`, which gets `REQUEST_ALREADY_COMPLETED`. Once the reply to the
/// call that ended the request is queued, the host stops accepting and removes its socket file,
/// sends GOODBYE `shuttingDown` to every session, waits for the replies still owed (every store
/// write they made is durable by then), tears the plugins down and prints the completion record.
public final class ExtensionHost: Sendable {
    public let options: HostOptions
    /// The socket path as given (or the default), as the ready line shows it.
    public let socketPath: String
    /// The extension request every session shares.
    public let request: ExtensionRequest
    public let store: AppGroupStore
    private let listener: SocketListener
    private let sessions: SessionTable
    private let output: HostOutput
    /// Left once the host serves; the accepting thread holds new sessions until then.
    private let serving: DispatchGroup
    private let running = LockedValue<Task<CompletionRecord, Never>?>(nil)

    private init(options: HostOptions, request: ExtensionRequest, store: AppGroupStore, listener: SocketListener,
                 sessions: SessionTable, output: HostOutput, serving: DispatchGroup) {
        self.options = options
        self.socketPath = options.socketPath
        self.request = request
        self.store = store
        self.listener = listener
        self.sessions = sessions
        self.output = output
        self.serving = serving
    }

    /// Checks the options, binds the socket, copies shared files into the first entitled group's
    /// container and writes the share key. Nothing is printed on standard output. `plugins` are
    /// registered in every session besides the built-in ones (see `HostPlugins`).
    ///
    /// - Throws: `HostError` (the host exits with `exitStatus`); nothing is left bound, and nothing
    ///   is written to the store unless the failure came from the store itself.
    public static func start(options: HostOptions, output: HostOutput = .process,
                             plugins: HostPlugins = HostPlugins()) async throws(HostError) -> ExtensionHost {
        let catalogue = try plugins.catalogue(addingTo: BuiltInPlugins.catalogue)
        let pluginKeys = try BuiltInPlugins.keys(selecting: options.plugins, in: catalogue)
        let givenItems = try await BlockingWork.run { () throws(HostError) -> [InputItem] in
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
        let request = ExtensionRequest(inputItems: items.planned)
        let serving = DispatchGroup()
        serving.enter()
        let setup = SessionSetup(options: options, pluginKeys: pluginKeys, catalogue: catalogue,
                                 setUpSession: plugins.setUpSession, request: request, store: store,
                                 sessions: sessions, output: output)
        var listenerOptions = SocketListener.Options()
        listenerOptions.connection.name = "extension-host pid \(ProcessInfo.processInfo.processIdentifier)"
        if let maxFrameBytes = options.maxFrameBytes { listenerOptions.connection.maxFrameLength = maxFrameBytes }
        listenerOptions.maxConnections = options.maxConnections
        listenerOptions.connection.maxHandlersInFlight = options.maxHandlersInFlight
        listenerOptions.connection.outboundHighWater = options.outboundHighWater
        listenerOptions.connection.outboundLowWater = options.outboundLowWater
        listenerOptions.connection.helloTimeout = options.helloTimeout
        let listener: SocketListener
        do {
            listener = try SocketListener(path: options.socketPath, options: listenerOptions) { connection in
                serving.wait()
                setup.open(connection)
            }
        } catch {
            // Balanced, so the group is released with the failed start (LeakSanitizer saw it kept).
            serving.leave()
            throw HostError(.socket, "cannot listen on \(options.socketPath): \(error.message) (\(error.code))")
        }
        let host = ExtensionHost(options: options, request: request, store: store, listener: listener,
                                 sessions: sessions, output: output, serving: serving)
        do {
            if hasFiles {
                let created = try await primary.containerDirectory()
                guard created == container else {
                    throw HostError(.store, "the container of \(options.primaryAppGroup) is \(created), not \(container)")
                }
                let copies = items.copies
                try await BlockingWork.run { () throws(HostError) in try InputPreparation.copy(copies) }
            }
        } catch {
            await host.abandon()
            if let error = error as? HostError { throw error }
            throw HostError(.store, "cannot create the container of app group \(options.primaryAppGroup): "
                            + ((error as? StoreError)?.message ?? String(describing: error)))
        }
        if let shareKey = options.shareKey {
            do {
                try await primary.set(.string(SharePayload.json(for: items.planned)), forKey: shareKey)
            } catch {
                await host.abandon()
                throw HostError(.store, "--share-key \(shareKey): cannot write it in app group "
                                + "\(options.primaryAppGroup): \(error.message)")
            }
        }
        return host
    }

    /// The text of REPLY status 2 for requests that arrive once the request has ended.
    public static let shuttingDownReason = "host is shutting down"

    /// Prints the ready line, serves until the request ends, shuts down as described above and
    /// prints the completion record, which it returns. Sessions are held until this is called;
    /// calling it again waits for the same record.
    public func run() async -> CompletionRecord {
        let task = running.withLock { running in
            if let task = running { return task }
            let task = Task { await self.serve() }
            running = task
            return task
        }
        return await task.value
    }

    private func serve() async -> CompletionRecord {
        output.standardOutput("ready \(socketPath)")
        serving.leave()
        let deadline = options.deadline.map { deadline in
            Task { [request] in
                do { try await Task.sleep(for: deadline) } catch { return }
                request.end(.expired, error: MethodError(
                    code: "EXPIRED",
                    message: "the deadline of \(Self.seconds(deadline)) s passed with neither exit nor cancel"))
            }
        }
        let ending = await request.waitForEnd()
        deadline?.cancel()
        if let reply = ending.endingReply { await reply.wait() }
        await shutDown(reason: "\(Self.shuttingDownReason) (\(ending.outcome))")
        // Every owed reply is out, so every write a session made has been acknowledged and is
        // durable: the store has nothing left to flush.
        let record = request.completionRecord ?? CompletionRecord(outcome: ending.outcome)
        output.standardOutput(record.jsonLine)
        return record
    }

    /// Ends the request as interrupted by `signal`, unless it has already ended.
    public func interrupt(_ signal: HostSignal) {
        request.end(.interrupted(signal), error: MethodError(
            code: signal.name, message: "the host was interrupted by \(signal.name)"))
    }

    /// The number of sessions now connected.
    public var sessionCount: Int { sessions.count }

    private func shutDown(reason: String) async {
        listener.close()
        await listener.waitUntilClosed()
        // No session can be added now: the accepting thread has ended.
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
        serving.leave()
        await shutDown(reason: "\(Self.shuttingDownReason) (failed to start)")
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
