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

        /// `get` or a typed getter.
        var isGet: Bool { self == .get || getterType != nil }

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
    /// The store of a group, and the same store when it can answer a read at once. A class, so
    /// that taking it out of its lock is one retain rather than a copy of two existentials through
    /// their value witnesses.
    private final class GroupStore: Sendable {
        let store: any PreferenceStore
        /// Not optional: a call through an optional existential copies it first.
        let reader: any CachedPreferenceReading

        init(store: any PreferenceStore) {
            self.store = store
            self.reader = store as? any CachedPreferenceReading ?? NothingCached()
        }
    }

    /// The reader of a store that cannot answer a read at once.
    private struct NothingCached: CachedPreferenceReading {
        func cachedValue(forKey key: String) throws(StoreError) -> CachedValue { .unknown }
    }

    private struct Session {
        /// Chosen with `setAppGroup`, else the default.
        var appGroup: String?
        /// The store of `appGroup` once a call has looked it up, so that later calls do not.
        var store: GroupStore?
        /// The method last looked up by name (`lastMethodName`). A session repeats a few methods,
        /// and the codec hands out the same `String` for a method name that repeats the last one,
        /// so comparing with it is cheaper than the string switch `Method(rawValue:)` runs. Kept
        /// here so that a get finds its method and its store in one lock.
        var lastMethodName = ""
        var lastMethod: Method?

        /// `lastMethod` when `name` is its name.
        func knownMethod(named name: String) -> Method? {
            lastMethodName == name ? lastMethod : nil
        }
    }

    /// The session's group, with its store when a call has looked that up.
    private enum SessionGroup {
        case group(String)
        case withStore(GroupStore)
    }

    /// This session's store operations, in arrival order, and its state under the same lock.
    private let order: SessionOrder<Session>

    init(_ configuration: PreferenceConfiguration) {
        self.configuration = configuration
        self.order = SessionOrder(Session(appGroup: configuration.defaultAppGroup))
    }

    /// The group this session's calls use now: chosen with `setAppGroup`, else the default.
    var sessionAppGroup: String? { order.withContext { $0.appGroup } }

    func handle(_ call: MethodCall) async throws -> StandardValue {
        try await handle(immediately: call)
    }

    func answerImmediately(_ call: MethodCall) throws -> MethodChannel.ImmediateResult {
        guard let method = method(named: call.method) else { throw MethodNotImplemented() }
        let arguments = PreferenceArguments(call)
        if method == .setAppGroup {
            let requested = try arguments.string("appGroup")
            try configuration.checkEntitled(requested)
            order.withContext { session in
                guard let current = session.appGroup, CodeUnitString.equal(current, requested) else {
                    session.appGroup = requested
                    session.store = nil
                    return
                }
            }
            return .value(.null)
        }
        let group = try sessionGroup(calling: call.method)
        if method.isGet {
            let key = try arguments.string("key")
            return try get(method, call.method, key: key, stores: try stores(for: group))
        }
        let (kind, operation) = try prepare(method, call.method, arguments, group: group)
        return .later { [order] in try await order.perform(kind, operation) }
    }

    /// A get whose arguments are exactly `{"key": String}`, its key read from the request's bytes:
    /// answered as `answerImmediately(_:)` answers it, without decoding the arguments. Every other
    /// call is declined, and decoded.
    func answerImmediately(
        _ name: String, encodedArguments arguments: StandardEncodedArguments
    ) throws -> MethodChannel.ImmediateResult? {
        // The method and the session's store when earlier calls looked them up (the usual case),
        // and whether a read may run now, in one lock. Asked where the request was read (the
        // in-place route of an immediate handler), which reads nothing more of the session until
        // this returns: `readingContext`'s condition.
        let ((known, store), mayReadNow) = order.readingContext { ($0.knownMethod(named: name), $0.store) }
        guard let method = known ?? method(named: name), method.isGet,
            let utf8 = arguments.onlyStringUTF8(named: "key")
        else {
            return nil
        }
        let stores = try store ?? stores(for: sessionGroup(calling: name))
        if mayReadNow, let answer = readNow(method, keyUTF8: utf8, stores: stores) { return .value(answer) }
        guard let key = arguments.onlyString(named: "key") else { return nil }
        return try get(method, name, key: key, stores: stores)
    }

    /// A get of the key whose UTF-8 bytes are `utf8`, answered from the store's cache
    /// (`CachedPreferenceReading.cachedValue(forKeyUTF8:)`, which finds a key read lately without
    /// building a `String`), for a caller that found nothing of the session pending; `nil` to take
    /// `get` instead: for a value that is not at hand, one of another type than the getter's
    /// (`WRONG_TYPE` names the key), or a store error, which `get` meets again and answers.
    private func readNow(
        _ method: Method, keyUTF8 utf8: UnsafeRawBufferPointer, stores: GroupStore
    ) -> StandardValue? {
        guard case .known(let stored) = stores.reader.cachedValue(forKeyUTF8: utf8) else {
            return nil
        }
        guard let stored else { return .null }
        guard let type = method.getterType else { return stored }
        return type.read(stored)
    }

    /// A get of `key`: answered right here when the store has the value at hand and nothing of
    /// the session is pending (the usual case for a read), with no further suspension point; else
    /// the read, in its turn.
    private func get(
        _ method: Method, _ name: String, key: String, stores: GroupStore
    ) throws -> MethodChannel.ImmediateResult {
        let type = method.getterType
        if let answer = try order.runNow(
            .read,
            { () throws -> StandardValue? in
                let cached: CachedValue
                do throws(StoreError) { cached = try stores.reader.cachedValue(forKey: key) } catch {
                    throw PreferenceErrors.store(error)
                }
                guard case .known(let stored) = cached else { return nil }
                guard let stored else { return .null }
                return try Self.answer(stored, as: type, key: key, method: name)
            })
        {
            return .value(answer)
        }
        let store = stores.store
        return .later { [order] in
            try await order.perform(.read) {
                guard
                    let stored = try await storeCall({ () async throws(StoreError) in
                        try await store.value(forKey: key)
                    })
                else { return .null }
                return try Self.answer(stored, as: type, key: key, method: name)
            }
        }
    }

    /// What a get answers for `stored`: the value itself for `get`, else the typed getter's reading
    /// of it, or `WRONG_TYPE`.
    private static func answer(
        _ stored: StandardValue, as type: PreferenceType?, key: String, method: String
    ) throws(MethodError) -> StandardValue {
        guard let type else { return stored }
        guard let value = type.read(stored) else {
            throw PreferenceErrors.wrongType(key: key, stored: stored, wanted: type, method: method)
        }
        return value
    }

    private func method(named name: String) -> Method? {
        if let method = order.withContext({ $0.knownMethod(named: name) }) { return method }
        guard let method = Method(rawValue: name) else { return nil }
        order.withContext { session in
            session.lastMethodName = name
            session.lastMethod = method
        }
        return method
    }

    /// The session's group, or `APP_GROUP_HAS_NOT_BEEN_SET` for a call of `method`.
    private func sessionGroup(calling method: String) throws(MethodError) -> SessionGroup {
        let found = order.withContext { session -> SessionGroup? in
            if let store = session.store { return .withStore(store) }
            return session.appGroup.map(SessionGroup.group)
        }
        guard let found else {
            throw PreferenceErrors.appGroupHasNotBeenSet(method: method, entitled: configuration.entitledAppGroups)
        }
        return found
    }

    private func store(for group: SessionGroup) throws(MethodError) -> any PreferenceStore {
        try stores(for: group).store
    }

    private func stores(for group: SessionGroup) throws(MethodError) -> GroupStore {
        switch group {
        case .withStore(let stores):
            return stores
        case .group(let name):
            let stores = GroupStore(store: try configuration.store(for: name))
            // Kept unless the group changed meanwhile.
            order.withContext { session in
                if let group = session.appGroup, CodeUnitString.equal(group, name) { session.store = stores }
            }
            return stores
        }
    }

    /// Checks a call that is neither `setAppGroup` nor a get and returns its store operation,
    /// without touching the store.
    private func prepare(
        _ method: Method, _ name: String, _ arguments: PreferenceArguments,
        group: SessionGroup
    ) throws -> (SessionOrder<Session>.Kind, Operation) {
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
            // Every other method is a get (`get(_:_:key:group:)`) or a setter, answered above.
            throw MethodNotImplemented()
        }
    }
}
