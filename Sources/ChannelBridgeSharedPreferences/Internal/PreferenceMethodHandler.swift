import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeStore

/// Answers the `shared_preference_app_group` method channel for one session.
///
/// Checks run in this order, so every call gets exactly one reply, and the same reply whatever
/// the store holds: unknown method (null reply), app group chosen, arguments, store available,
/// then the store operation. The checks and the choice of group happen as the call arrives; the
/// store operation then takes its turn in `order`, so the session's calls take effect in the order
/// they arrived (a get sees every earlier set, remove, append or take of the session).
///
/// A get the store can answer from its cache, and `setAppGroup`, are answered as the call is read,
/// with no task (`ImmediateMethodCallDelegate`); every other call is work in a task.
final class PreferenceMethodHandler: ImmediateMethodCallDelegate {
    private enum Method: String {
        case setAppGroup
        case get, getBool, getInt, getDouble, getString, getStringArray, getBytes, getAll
        case setBool, setInt, setDouble, setString, setStringArray, setBytes
        case remove, removeAll, appendToList, take

        var getterType: PreferenceType? {
            switch self {
            case .getBool: .bool
            case .getInt: .int
            case .getDouble: .double
            case .getString: .string
            case .getStringArray: .stringArray
            case .getBytes: .bytes
            default: nil
            }
        }

        var setterType: PreferenceType? {
            switch self {
            case .setBool: .bool
            case .setInt: .int
            case .setDouble: .double
            case .setString: .string
            case .setStringArray: .stringArray
            case .setBytes: .bytes
            default: nil
            }
        }
    }

    private typealias Operation = @Sendable () async throws -> StandardValue

    private let configuration: PreferenceConfiguration
    /// This session's app group.
    private let appGroup: LockedValue<String?>
    /// The store of the group the session used last, so a call does not look it up again.
    /// A class, so that taking it out of its lock is one retain rather than a copy of two
    /// existentials through their value witnesses.
    private final class LastStore: Sendable {
        let group: String
        let store: any PreferenceStore
        /// The same store when it can answer a read at once.
        let reader: (any CachedPreferenceReading)?

        init(group: String, store: any PreferenceStore, reader: (any CachedPreferenceReading)?) {
            self.group = group
            self.store = store
            self.reader = reader
        }
    }

    private let lastStore = LockedValue<LastStore?>(nil)
    /// The method last looked up by name. A session repeats a few methods, and the codec hands
    /// out the same `String` for a method name that repeats the last one, so comparing with it is
    /// cheaper than the string switch `Method(rawValue:)` runs.
    private let lastMethod = LockedValue<(name: String, method: Method)?>(nil)
    /// This session's store operations, in arrival order.
    private let order = SessionOrder()

    init(_ configuration: PreferenceConfiguration) {
        self.configuration = configuration
        self.appGroup = LockedValue(configuration.defaultAppGroup)
    }

    /// The group this session's calls use now: chosen with `setAppGroup`, else the default.
    var sessionAppGroup: String? { appGroup.withLock { $0 } }

    func handle(_ call: MethodCall) async throws -> StandardValue {
        try await handle(immediately: call)
    }

    func answerImmediately(_ call: MethodCall) throws -> MethodChannel.ImmediateResult {
        guard let method = method(named: call.method) else { throw MethodNotImplemented() }
        let arguments = PreferenceArguments(call)
        if method == .setAppGroup {
            let requested = try arguments.string("appGroup")
            try configuration.checkEntitled(requested)
            appGroup.withLock { $0 = requested }
            return .value(.null)
        }
        guard let group = appGroup.withLock({ $0 }) else {
            throw PreferenceErrors.appGroupHasNotBeenSet(method: call.method, entitled: configuration.entitledAppGroups)
        }
        if let answer = try answerNow(method, call.method, arguments, group: group) { return .value(answer) }
        let (kind, operation) = try prepare(method, call.method, arguments, group: group)
        return .later { [order] in try await order.perform(kind, operation) }
    }

    /// A get whose answer the store has at hand, when nothing of the session is pending: answered
    /// right here, with no further suspension point (the usual case for a read).
    private func answerNow(
        _ method: Method, _ name: String, _ arguments: PreferenceArguments,
        group: String
    ) throws -> StandardValue? {
        guard method.getterType != nil || method == .get else { return nil }
        let key = try arguments.string("key")
        guard let reader = try stores(for: group).reader else { return nil }
        return try order.runNow(.read) { () throws -> StandardValue? in
            let cached: CachedValue
            do throws(StoreError) { cached = try reader.cachedValue(forKey: key) } catch {
                throw PreferenceErrors.store(error)
            }
            guard case .known(let stored) = cached else { return nil }
            guard let stored else { return .null }
            guard let type = method.getterType else { return stored }
            guard let value = type.read(stored) else {
                throw PreferenceErrors.wrongType(key: key, stored: stored, wanted: type, method: name)
            }
            return value
        }
    }

    private func method(named name: String) -> Method? {
        if let last = lastMethod.withLock({ $0 }), last.name == name { return last.method }
        guard let method = Method(rawValue: name) else { return nil }
        lastMethod.withLock { $0 = (name, method) }
        return method
    }

    private func store(for group: String) throws(MethodError) -> any PreferenceStore {
        try stores(for: group).store
    }

    private func stores(for group: String) throws(MethodError) -> LastStore {
        if let last = lastStore.withLock({ $0 }), CodeUnitString.equal(last.group, group) { return last }
        let store = try configuration.store(for: group)
        let last = LastStore(group: group, store: store, reader: store as? any CachedPreferenceReading)
        lastStore.withLock { $0 = last }
        return last
    }

    /// Checks the call and returns its store operation, without touching the store.
    private func prepare(
        _ method: Method, _ name: String, _ arguments: PreferenceArguments,
        group: String
    ) throws -> (SessionOrder.Kind, Operation) {
        if let type = method.getterType {
            let key = try arguments.string("key")
            let store = try self.store(for: group)
            return (
                .read,
                {
                    guard
                        let stored = try await storeCall({ () async throws(StoreError) in
                            try await store.value(forKey: key)
                        })
                    else { return .null }
                    guard let value = type.read(stored) else {
                        throw PreferenceErrors.wrongType(key: key, stored: stored, wanted: type, method: name)
                    }
                    return value
                }
            )
        }
        if let type = method.setterType {
            let key = try arguments.string("key")
            let value = try arguments.value(for: type, key: key)
            let store = try self.store(for: group)
            return (
                .write,
                {
                    try await storeCall { () async throws(StoreError) in try await store.set(value, forKey: key) }
                    return .null
                }
            )
        }
        switch method {
        case .get:
            let key = try arguments.string("key")
            let store = try self.store(for: group)
            return (
                .read,
                {
                    try await storeCall { () async throws(StoreError) in try await store.value(forKey: key) } ?? .null
                }
            )
        case .getAll:
            let store = try self.store(for: group)
            return (
                .read,
                {
                    let entries = try await storeCall { () async throws(StoreError) in try await store.allValues() }
                    return .map(entries.map { StandardValue.MapEntry(.string($0.key), $0.value) })
                }
            )
        case .remove:
            let key = try arguments.string("key")
            let store = try self.store(for: group)
            return (
                .write,
                {
                    try await storeCall { () async throws(StoreError) in try await store.remove(key) }
                    return .null
                }
            )
        case .removeAll:
            let store = try self.store(for: group)
            return (
                .write,
                {
                    try await storeCall { () async throws(StoreError) in try await store.removeAll() }
                    return .null
                }
            )
        case .appendToList:
            let key = try arguments.string("key")
            let values = try arguments.list("values")
            let store = try self.store(for: group)
            return (
                .write,
                {
                    // One locked read-modify-write: appenders in any number of processes lose no item.
                    do {
                        try await store.update(key: key) { old in
                            switch old {
                            case nil: return .list(values)
                            case .list(let items)?: return .list(items + values)
                            case let other?:
                                throw PreferenceErrors.wrongType(key: key, stored: other, wanted: .list, method: name)
                            }
                        }
                    } catch let error as StoreError {
                        throw PreferenceErrors.store(error)
                    }
                    return .null
                }
            )
        case .take:
            let key = try arguments.string("key")
            let requestID = try arguments.optionalString("requestId")
            if let requestID, requestID.isEmpty || requestID.utf8.count > 128 {
                throw PreferenceErrors.invalidArguments(
                    method: name, argument: "requestId",
                    "the argument 'requestId' must be 1 to 128 bytes of UTF-8, got \(requestID.utf8.count)")
            }
            let store = try self.store(for: group)
            return (
                .write,
                {
                    try await storeCall { () async throws(StoreError) in
                        if let requestID { return try await store.take(key: key, requestID: requestID) }
                        return try await store.take(key: key)
                    } ?? .null
                }
            )
        default:
            // Every other method is a getter or setter, answered above.
            throw MethodNotImplemented()
        }
    }
}
