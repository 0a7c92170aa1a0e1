import ChannelBridgePlatform

/// The state one `PluginRegistry` shares with its registrars: per key, what the plugin published,
/// the channel handlers it installed and its teardown hooks.
final class RegistryCore: Sendable {
    typealias Hook = @Sendable () async -> Void
    /// Removes one channel handler a plugin installed through its registrar.
    typealias Uninstall = @Sendable () -> Void

    struct Entry {
        var publication: PluginPublication = .nothing
        var uninstalls: [Uninstall] = []
        var hooks: [Hook] = []
    }

    private struct State {
        var order: [String] = []
        var entries: [String: Entry] = [:]
        /// Set by the first `tearDown`; later calls wait for the same work.
        var tearDown: Task<Void, Never>?
    }

    private let state = LockedValue(State())

    // MARK: Registry side

    func add(_ key: String) throws(PluginError) {
        try state.withLock { state throws(PluginError) in
            if state.tearDown != nil { throw .registryTornDown(key) }
            if state.entries[key] != nil { throw .duplicateKey(key) }
            state.entries[key] = Entry()
            state.order.append(key)
        }
    }

    var keys: [String] {
        state.withLock { $0.order }
    }

    var isTornDown: Bool {
        state.withLock { $0.tearDown != nil }
    }

    func publication(of key: String) -> PluginPublication? {
        state.withLock { $0.entries[key]?.publication }
    }

    /// Forgets `key` after its plugin failed to register: removes what it installed and runs the
    /// hooks it added, so a failed plugin leaves nothing behind.
    func rollBack(_ key: String) async {
        let entry = state.withLock { state -> Entry? in
            state.order.removeAll { $0 == key }
            return state.entries.removeValue(forKey: key)
        }
        guard let entry else { return }
        await Self.dismantle([entry])
    }

    /// `rollBack` for a caller that cannot wait: removes what the plugin installed now and returns
    /// the hooks it added, for the caller to run.
    func rollBackNow(_ key: String) -> [Hook] {
        let entry = state.withLock { state -> Entry? in
            state.order.removeAll { $0 == key }
            return state.entries.removeValue(forKey: key)
        }
        guard let entry else { return [] }
        for uninstall in entry.uninstalls { uninstall() }
        return entry.hooks
    }

    /// Removes every installed handler, then runs every hook, once; concurrent and later calls
    /// return when that work is done.
    func tearDown() async {
        let work = state.withLock { state -> Task<Void, Never> in
            if let running = state.tearDown { return running }
            let entries = state.order.compactMap { state.entries[$0] }
            for key in state.order {
                state.entries[key]?.uninstalls = []
                state.entries[key]?.hooks = []
            }
            // Created under the lock so that a concurrent call finds it; it runs elsewhere.
            let task = Task { await Self.dismantle(entries) }
            state.tearDown = task
            return task
        }
        await work.value
    }

    /// Handlers first, for every plugin, so that no call arrives while hooks release resources;
    /// then hooks in registration order, each plugin's in the order it added them.
    private static func dismantle(_ entries: [Entry]) async {
        for entry in entries {
            for uninstall in entry.uninstalls { uninstall() }
        }
        for entry in entries {
            for hook in entry.hooks { await hook() }
        }
    }

    // MARK: Registrar side

    func publish(_ value: any Sendable, for key: String) {
        state.withLock { state in
            state.entries[key]?.publication = .value(value)
        }
    }

    /// Runs `install` and keeps the uninstall it returns, unless the registry is torn down or the
    /// key was rolled back; then nothing is installed.
    func install(for key: String, _ install: () -> Uninstall) {
        state.withLock { state in
            guard state.tearDown == nil, state.entries[key] != nil else { return }
            // Under the lock so that a teardown cannot slip between installing and recording;
            // installing a channel handler never calls back into the registry. Lock order: the
            // registry's lock, then the channel's (`HandlerSlot`), then the messenger's.
            state.entries[key]?.uninstalls.append(install())
        }
    }

    /// Keeps `hook` for teardown; when the registry is already torn down (or the key rolled back)
    /// the hook runs at once instead, so whatever it releases is not leaked.
    func addHook(_ hook: @escaping Hook, for key: String) {
        let kept = state.withLock { state -> Bool in
            guard state.tearDown == nil, state.entries[key] != nil else { return false }
            state.entries[key]?.hooks.append(hook)
            return true
        }
        if !kept { Task { await hook() } }
    }
}
