import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSocket
import ChannelBridgeStore

extension ExtensionHostCommand {
    /// The process as an isolated host's worker (Protocol/extension-host.md §1.8): started by the
    /// host with its command line, the control channel on descriptor 3 and the hand-off socket on
    /// 4. Fetches the request's input items, waits for one client connection, serves it with the
    /// host's options, and exits when it ends, or at once when the host goes away.
    static func runWorker(plugins: HostPlugins, installsSandbox: Bool) async -> Never {
        Syscalls.removeEnvironment(WorkerChannel.environmentVariable)
        // Inherited for this process only: a process it starts (Swift's backtracer, after a
        // crash) must not hold the host's channels open after it has died.
        DescriptorPassing.closeOnExec(WorkerChannel.controlDescriptor)
        DescriptorPassing.closeOnExec(WorkerChannel.handOffDescriptor)
        let log = HostOutput.process.standardError
        let options: HostOptions
        let catalogue: PluginCatalogue
        let pluginKeys: [String]
        do throws(HostError) {
            guard case .run(let parsed) = try HostOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
                ProcessExit.immediately(64)
            }
            options = parsed
            catalogue = try plugins.catalogue(addingTo: BuiltInPlugins.catalogue)
            pluginKeys = try BuiltInPlugins.keys(selecting: options.plugins, in: catalogue)
        } catch {
            log("extension-host: worker: \(error.message)")
            ProcessExit.immediately(1)
        }
        let store = AppGroupStore(dataDirectory: options.dataDirectory)
        if installsSandbox {
            do throws(HostError) {
                try installSandbox(options: options, store: store, output: nil, preparesDirectories: false)
            } catch {
                log("extension-host: worker: \(error.message)")
                ProcessExit.immediately(1)
            }
        }
        let gate = ExtensionRequest.sessionGate(extensionChannel: options.channel)
        let worker = WorkerSession()
        let control: SocketConnection
        do {
            control = try SocketConnection.adopt(
                fd: WorkerChannel.controlDescriptor, role: .client, path: "host control",
                options: WorkerChannel.connectionOptions(name: "extension-host worker")
            ) { connection in
                let channel = MethodChannel(name: WorkerChannel.name, messenger: connection.messenger)
                channel.setMethodCallHandler { call in
                    switch call.method {
                    case "shutDown":
                        await worker.shutDown(
                            reason: call.arguments["reason"]?.stringValue ?? ExtensionHost.shuttingDownReason,
                            outcome: WorkerChannel.outcome(call.arguments["outcome"]) ?? .interrupted(.sigterm))
                        return .null
                    case "unfinishedCalls":
                        return .int64(Int64(worker.session?.connection.messenger.owedReplyCount ?? 0))
                    default:
                        throw MethodNotImplemented()
                    }
                }
                // The host is gone: nothing is left to serve for. (Closed by this worker once its
                // session has ended, the channel's end leaves the teardown below to finish.)
                connection.onClose { _ in
                    if !worker.sessionEnded { ProcessExit.immediately(0) }
                }
            }
        } catch {
            log("extension-host: worker: the control channel: \(error)")
            ProcessExit.immediately(1)
        }
        let channel = MethodChannel(name: WorkerChannel.name, messenger: control.messenger)
        let items: [InputItem]
        do {
            let started = try await channel.invokeMethod("start")
            items = (started["inputItems"]?.listValue ?? []).compactMap(InputItem.init(standardValue:))
        } catch {
            ProcessExit.immediately(0)
        }
        let remote = RemoteRequest(channel: channel)
        let request = ExtensionRequest(inputItems: items, gate: gate, remote: remote)
        worker.request = request
        // A worker started for a client already waiting finds its descriptor there: no rehearsal.
        if !Syscalls.poll(WorkerChannel.handOffDescriptor, forInput: true, milliseconds: 0).isReady {
            await WorkerWarmUp.run(
                options: options, catalogue: catalogue, pluginKeys: pluginKeys, request: request, store: store)
            _ = try? await channel.invokeMethod("ready")
        }

        // The hand-off: the client's descriptor and the session's number, or the end of the socket
        // when the host lets this idle worker go.
        guard let client = await receiveClient() else { ProcessExit.immediately(0) }
        let (fd, id) = client
        FatalSignalReport.guardSession(socket: fd, reportingTo: WorkerChannel.handOffDescriptor)
        let setup = SessionSetup(
            options: options, pluginKeys: pluginKeys, catalogue: catalogue,
            setUpSession: plugins.setUpSession, request: request, store: store,
            sessions: SessionTable(), output: .process)
        do {
            _ = try SocketConnection.adopt(
                fd: fd, role: .host, path: options.socketPath, options: options.sessionConnectionOptions(gate: gate)
            ) { connection in
                worker.session = setup.open(connection, id: Int(id))
                // The host learns of the session's end at once, so that it can kill this worker
                // should tearing its plugins down hang (a handler that never returns).
                connection.onClose { _ in
                    // A crash shut the session down: the control channel stays open until the
                    // process has died by its signal, so the host sees the crash, not an exit.
                    guard !FatalSignalReport.sessionIsCrashing else { return }
                    worker.sessionEnded = true
                    // What the session told the host without waiting (a plugin that ended the
                    // request, then dropped its reply) reaches it before the channel closes.
                    Task {
                        await remote.settle()
                        control.close()
                    }
                }
            }
        } catch {
            log("extension-host: [session \(id)] worker: \(error)")
            ProcessExit.immediately(1)
        }
        if let session = worker.session {
            await session.connection.waitUntilClosed()
            // Dying by a signal (its backtrace may take seconds): never exit in its place.
            while FatalSignalReport.sessionIsCrashing { try? await Task.sleep(for: .seconds(3600)) }
            await session.tearDown()
        }
        await control.waitUntilClosed()
        ProcessExit.immediately(0)
    }

    /// Waits on a thread of its own for the client's descriptor on the hand-off socket.
    private static func receiveClient() async -> (fd: Int32, tag: UInt64)? {
        await withCheckedContinuation { continuation in
            DetachedThread.start(name: "cb hand-off") {
                continuation.resume(returning: DescriptorPassing.receive(from: WorkerChannel.handOffDescriptor))
            }
        }
    }
}

/// What a worker serves, for the host's `shutDown`: set once each, before the control channel can
/// ask for it (the request before the hand-off, the session as it opens).
private final class WorkerSession: Sendable {
    private let state = LockedValue<(request: ExtensionRequest?, session: HostSession?, ended: Bool)>((nil, nil, false))

    /// Set once the client's session has ended; the worker then closes its control channel itself.
    var sessionEnded: Bool {
        get { state.withLock { $0.ended } }
        set { state.withLock { $0.ended = newValue } }
    }

    var request: ExtensionRequest? {
        get { state.withLock { $0.request } }
        set { state.withLock { $0.request = newValue } }
    }

    var session: HostSession? {
        get { state.withLock { $0.session } }
        set { state.withLock { $0.session = newValue } }
    }

    /// Ends the worker's request as the host's did (its session then refuses new requests), closes
    /// the session with GOODBYE `shuttingDown` after the replies it owes, and tears its plugins down.
    func shutDown(reason: String, outcome: HostOutcome) async {
        _ = request?.end(outcome, returnedItems: nil, error: nil, endingReply: nil)
        guard let session else { return }
        session.connection.close(code: .shuttingDown, reason: reason)
        await session.connection.waitUntilClosed()
        await session.tearDown()
    }
}
