import ChannelBridgeChannels
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
        /// The catalog entries the plugin added, in order, each with what the catalog said just
        /// before (`nil`: not listed), for a failed registration to put back latest first.
        var catalogued: [(name: String, previous: ChannelDescription?)] = []
    }

    private struct State {
        var order: [String] = []
        var entries: [String: Entry] = [:]
        /// Handlers the registry installed for itself (its reflection channel), under no key.
        var ownUninstalls: [Uninstall] = []
        /// Set by the first `tearDown`; later calls wait for the same work.
        var tearDown: Task<Void, Never>?
    }

    private let state = LockedValue(State())
    /// The registry's catalog, where a failed registration's entries are taken back.
    private let channels: ChannelCatalog

    init(channels: ChannelCatalog) {
        self.channels = channels
    }

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
        uncatalogue(entry)
        await Self.dismantle([entry], own: [])
    }

    /// `rollBack` for a caller that cannot wait: removes what the plugin installed now and returns
    /// the hooks it added, for the caller to run.
    func rollBackNow(_ key: String) -> [Hook] {
        let entry = state.withLock { state -> Entry? in
            state.order.removeAll { $0 == key }
            return state.entries.removeValue(forKey: key)
        }
        guard let entry else { return [] }
        uncatalogue(entry)
        for uninstall in entry.uninstalls { uninstall() }
        return entry.hooks
    }

    /// Puts back the catalog entries of a plugin that failed, latest first, so that a channel it
    /// touched twice ends as it was before the first time.
    private func uncatalogue(_ entry: Entry) {
        for (name, previous) in entry.catalogued.reversed() { channels.restore(name, to: previous) }
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
            let own = state.ownUninstalls
            state.ownUninstalls = []
            // Created under the lock so that a concurrent call finds it; it runs elsewhere.
            let task = Task { await Self.dismantle(entries, own: own) }
            state.tearDown = task
            return task
        }
        await work.value
    }

    /// Handlers first, for every plugin and then the registry's own, so that no call arrives while
    /// hooks release resources; then hooks in registration order, each plugin's in the order it
    /// added them.
    private static func dismantle(_ entries: [Entry], own: [Uninstall]) async {
        for entry in entries {
            for uninstall in entry.uninstalls { uninstall() }
        }
        for uninstall in own { uninstall() }
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

    /// Remembers that the plugin under `key` added the catalog entry `name`, which was `previous`
    /// before. Returns `false` when `key` is no longer registered (rolled back, or the registry is
    /// torn down): the caller puts `previous` back itself, as nothing will.
    func catalogued(_ name: String, previous: ChannelDescription?, for key: String) -> Bool {
        state.withLock { state in
            guard state.tearDown == nil, state.entries[key] != nil else { return false }
            state.entries[key]?.catalogued.append((name, previous))
            return true
        }
    }

    /// `install(for:_:)` for a handler of the registry itself, kept under no plugin's key; nothing
    /// is installed once the registry is torn down.
    func installOwn(_ install: () -> Uninstall) {
        state.withLock { state in
            guard state.tearDown == nil else { return }
            // Under the lock, as in `install(for:_:)`, and with the same lock order.
            state.ownUninstalls.append(install())
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
