import ChannelBridgeChannels
public import ChannelBridgeMessenger
import ChannelBridgePlatform
public import ChannelBridgePlugins
public import Foundation

/// One ChannelBridge session seen the way iOS plugin code sees a Flutter engine: the binary
/// messenger its channels use and the plugin registry its plugins register with (Flutter's
/// `FlutterEngine`).
///
/// ```swift
/// // In a host, per session (one registry per session, shared with native plugins):
/// let engine = FlutterEngine.engine(for: registry)
/// GeneratedPluginRegistrant.register(with: engine)
///
/// let channel = FlutterMethodChannel(name: "example/battery", binaryMessenger: engine)
/// channel.setMethodCallHandler { call, result in
///     result(call.method == "level" ? 87 : FlutterMethodNotImplemented)
/// }
/// ```
///
/// Threading, as on iOS: every handler runs on the engine's one serial platform executor (or on
/// the serial task queue it was installed with), one at a time, in the order the messages
/// arrived on the session, across channels. The platform executor runs on the process's main
/// thread, shared by every engine, so handlers can schedule `Timer`s on the main run loop, use
/// `DispatchQueue.main` and the main actor, and see `Thread.isMainThread` true, provided the
/// process runs its main run loop (`FlutterRunLoop.runMain`); `Options.platformThread` can give
/// an engine a queue of its own instead. A `FlutterResult` or reply may be called later, from
/// any thread, once; a second call is ignored with a logged warning. Reply callbacks of messages
/// the engine sends run on the platform executor.
///
/// The platform executor admits `Options.maximumWaitingMessages` messages at a time; a request
/// beyond that is answered with a failure naming its channel, a one-way message beyond it is
/// dropped with a warning. The engine is torn down when its session's connection ends (or by
/// `destroyContext()`): its handlers are removed, active event streams are cancelled and
/// published plugins get `detachFromEngine(for:)`.
// @unchecked: `let`s only; mutable state is in `state`, a LockedValue, and handlers run on the serial `platform` executor.
open class FlutterEngine: NSObject, @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a `LockedValue`); handlers are only called on their
    // executors.

    /// Bounds, names and where handlers run.
    public struct Options: Sendable {
        /// Messages that may wait for the platform executor (and for each task queue).
        public var maximumWaitingMessages: Int
        /// Names the platform executor's queue.
        public var label: String
        /// Where handlers without a task queue and reply callbacks run: the process's main
        /// thread (the default, as on iOS) or a serial queue of the engine's own.
        public var platformThread: PlatformThread

        public init(
            maximumWaitingMessages: Int = 1_024, label: String = "FlutterEngine",
            platformThread: PlatformThread = .main
        ) {
            self.maximumWaitingMessages = maximumWaitingMessages
            self.label = label
            self.platformThread = platformThread
        }
    }

    struct Installed {
        var channel: String
        var token: MessageHandlerToken
    }

    struct State {
        var nextConnection: FlutterBinaryMessengerConnection = 0
        var connections: [FlutterBinaryMessengerConnection: Installed] = [:]
        /// The connection now installed for each channel.
        var current: [String: FlutterBinaryMessengerConnection] = [:]
        var registry: PluginRegistry?
        /// Where reflection lists this engine's channels: the registry's catalog, else that of the
        /// first native registrar adopted (an engine made for a plugin registered by name).
        var channels: ChannelCatalog?
        var registrars: [String: FlutterEngineRegistrar] = [:]
        /// Run on teardown on their executors (event channels cancel their streams).
        var teardowns: [(SerialExecutor, @Sendable () -> Void)] = []
        var destroyed = false
    }

    /// The ChannelBridge session this engine speaks over.
    public let sessionMessenger: any BinaryMessenger
    public let options: Options
    let platform: SerialExecutor
    let state: LockedValue<State>

    /// An engine over `registry`'s session that registers plugins in `registry`, so that
    /// `hasPlugin` and `valuePublished(byPlugin:)` agree with the native registry. Prefer
    /// `engine(for:)`, which gives every caller the session's one engine; the first engine made
    /// for a session is the one `engine(for:)` and `FlutterPluginType` find.
    public convenience init(registry: PluginRegistry, options: Options = Options()) {
        self.init(messenger: registry.messenger, registry: registry, options: options)
    }

    /// An engine over `messenger` with a plugin registry of its own.
    public convenience init(messenger: any BinaryMessenger, options: Options = Options()) {
        self.init(messenger: messenger, registry: PluginRegistry(messenger: messenger), options: options)
    }

    init(messenger: any BinaryMessenger, registry: PluginRegistry?, options: Options) {
        self.sessionMessenger = messenger
        self.options = options
        self.platform = options.platformThread.makeExecutor(
            label: "\(options.label) platform",
            limit: options.maximumWaitingMessages)
        self.state = LockedValue(State(registry: registry, channels: registry?.channels))
        super.init()
        // Strong: the session keeps its engine until the connection ends.
        messenger.onClose { _ in self.destroyContext() }
        EngineTable.add(self)
    }

    /// The engine of `registry`'s session: made on first use, the same one afterwards (also for
    /// Flutter plugins registered by name with `FlutterPluginType`), until the session ends.
    public static func engine(for registry: PluginRegistry) -> FlutterEngine {
        let engine = EngineTable.engine(for: registry.messenger) {
            FlutterEngine(messenger: registry.messenger, registry: registry, options: Options())
        }
        engine.adopt(registry)
        return engine
    }

    /// The engine as its channels' messenger (Flutter's `binaryMessenger` property).
    public var binaryMessenger: any FlutterBinaryMessenger { self }

    /// Whether the engine has been torn down.
    public var isDestroyed: Bool { state.withLock { $0.destroyed } }

    /// Tears the engine down now (it also happens when the session's connection ends): removes
    /// its handlers, cancels active event streams and detaches published plugins, on their
    /// executors. Later handlers are not installed; later sends get a `nil` reply.
    public func destroyContext() {
        let (installed, teardowns, registrars) = state.withLock {
            state -> ([Installed], [(SerialExecutor, @Sendable () -> Void)], [FlutterEngineRegistrar]) in
            guard !state.destroyed else { return ([], [], []) }
            state.destroyed = true
            defer {
                state.connections = [:]
                state.current = [:]
                state.teardowns = []
                state.registrars = [:]
            }
            return (Array(state.connections.values), state.teardowns, Array(state.registrars.values))
        }
        for entry in installed { sessionMessenger.removeMessageHandler(entry.token) }
        EngineTable.remove(self)
        for (executor, teardown) in teardowns { executor.enqueueUnbounded(teardown) }
        let detaching = Handoff(registrars)
        platform.enqueueUnbounded {
            for registrar in detaching.value { registrar.detachPublishedPlugin() }
        }
    }

    /// `destroyContext()`, returning once the teardown work has run.
    public func tearDown() async {
        destroyContext()
        let executors = [platform] + taskQueueExecutors()
        for executor in executors { await executor.drain() }
    }

    /// Keeps `teardown` to run on `executor` when the engine is torn down; runs it at once (there)
    /// if it already has been.
    func onTeardown(on executor: SerialExecutor, _ teardown: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.destroyed { return true }
            state.teardowns.append((executor, teardown))
            return false
        }
        if now { executor.enqueueUnbounded(teardown) }
    }

    private func adopt(_ registry: PluginRegistry) {
        let conflict = state.withLock { state -> Bool in
            if state.registry == nil { state.registry = registry; return false }
            return state.registry !== registry
        }
        if conflict {
            FlutterLog.warning(
                "FlutterEngine.engine(for:) was given a second registry for the same session; keeping the first")
        }
    }

    private let taskQueues = LockedValue<[SerialExecutor]>([])

    func taskQueueExecutors() -> [SerialExecutor] {
        taskQueues.withLock { $0 }
    }

    func makeTaskQueueExecutor() -> SerialExecutor {
        let executor = SerialExecutor(label: "\(options.label) task queue", limit: options.maximumWaitingMessages)
        taskQueues.withLock { $0.append(executor) }
        return executor
    }
}
