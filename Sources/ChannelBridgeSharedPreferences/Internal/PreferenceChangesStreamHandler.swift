import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeStore

/// Owns `shared_preference_app_group/changes` for one session: forwards the store's changes of
/// the group named in `listen` as `{key, value}` events.
final class PreferenceChangesStreamHandler: StreamHandler {
    private let configuration: PreferenceConfiguration
    /// The session's group (from its method handler), for a listen that names none.
    private let sessionAppGroup: @Sendable () -> String?
    /// Forwards the active stream's changes; cancelled by `onCancel`.
    private let forwarder = LockedValue<Task<Void, Never>?>(nil)

    init(_ configuration: PreferenceConfiguration, sessionAppGroup: @escaping @Sendable () -> String?) {
        self.configuration = configuration
        self.sessionAppGroup = sessionAppGroup
    }

    func onListen(arguments: StandardValue, events: EventSink) async throws {
        let call = PreferenceArguments(MethodCall("listen", arguments: arguments))
        let appGroup: String
        let namesNoGroup =
            arguments == .null || (arguments.mapEntries != nil && (arguments["appGroup"] ?? .null) == .null)
        if !namesNoGroup {
            appGroup = try call.string("appGroup")
        } else if let group = sessionAppGroup() {
            appGroup = group
        } else {
            throw PreferenceErrors.appGroupHasNotBeenSet(method: "listen", entitled: configuration.entitledAppGroups)
        }
        let keys = try Self.keyFilter(arguments)
        try configuration.checkEntitled(appGroup)
        let store = try configuration.store(for: appGroup)
        // Subscribed before the listen reply goes out: every write after the reply is seen.
        let changes = try await storeCall { () async throws(StoreError) in try await store.changes() }
        // The store's changes are read as they come, so they never pile up there; while the
        // listener is behind, the sink keeps only the latest change per key (the store's contract
        // allows one change carrying the latest value), so a listener that stops reading costs
        // at most one value per key (wire protocol §4.10).
        let task = Task {
            for await change in changes {
                guard events.isActive else { break }
                if let keys, !keys.contains(CodeUnitString(change.key)) { continue }
                events.success(["key": .string(change.key), "value": change.value ?? .null], coalescingKey: change.key)
            }
        }
        let previous = forwarder.withLock { forwarder in
            defer { forwarder = task }
            return forwarder
        }
        previous?.cancel()
    }

    func onCancel(arguments: StandardValue) async throws {
        let task = forwarder.withLock { forwarder in
            defer { forwarder = nil }
            return forwarder
        }
        task?.cancel()
    }

    /// `keys`: absent or null for every key, else a list of strings, matched by code units.
    private static func keyFilter(_ arguments: StandardValue) throws(MethodError) -> Set<CodeUnitString>? {
        guard let keys = arguments["keys"], keys != .null else { return nil }
        guard let list = keys.stringListValue else {
            throw PreferenceErrors.invalidArguments(
                method: "listen", argument: "keys",
                "the argument 'keys' must be a List<String> or null, got \(PreferenceType.typeName(of: keys))")
        }
        return Set(list.map { CodeUnitString($0) })
    }
}
