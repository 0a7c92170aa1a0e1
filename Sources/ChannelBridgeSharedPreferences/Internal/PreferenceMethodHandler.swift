import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeStore
import Synchronization

/// Answers the `shared_preference_app_group` method channel for one session.
///
/// Checks run in this order, so every call gets exactly one reply, and the same reply whatever
/// the store holds: unknown method (null reply), app group chosen, arguments, store available,
/// then the store operation.
final class PreferenceMethodHandler: MethodCallDelegate {
    private enum Method: String {
        case setAppGroup
        case get, getBool, getInt, getDouble, getString, getStringArray, getBytes, getAll
        case setBool, setInt, setDouble, setString, setStringArray, setBytes
        case remove, removeAll

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

    private let configuration: PreferenceConfiguration
    /// This session's app group.
    private let appGroup: Mutex<String?>

    init(_ configuration: PreferenceConfiguration) {
        self.configuration = configuration
        self.appGroup = Mutex(configuration.defaultAppGroup)
    }

    /// The group this session's calls use now: chosen with `setAppGroup`, else the default.
    var sessionAppGroup: String? { appGroup.withLock { $0 } }

    func handle(_ call: MethodCall) async throws -> StandardValue {
        guard let method = Method(rawValue: call.method) else { throw MethodNotImplemented() }
        let arguments = PreferenceArguments(call)
        if method == .setAppGroup {
            let requested = try arguments.string("appGroup")
            try configuration.checkEntitled(requested)
            appGroup.withLock { $0 = requested }
            return .null
        }
        guard let group = appGroup.withLock({ $0 }) else {
            throw PreferenceErrors.appGroupHasNotBeenSet(method: call.method, entitled: configuration.entitledAppGroups)
        }
        if let type = method.getterType {
            let key = try arguments.string("key")
            let store = try configuration.store(for: group)
            guard let stored = try await storeCall({ () async throws(StoreError) in try await store.value(forKey: key) })
            else { return .null }
            guard let value = type.read(stored) else {
                throw PreferenceErrors.wrongType(key: key, stored: stored, wanted: type, method: call.method)
            }
            return value
        }
        if let type = method.setterType {
            let key = try arguments.string("key")
            let value = try arguments.value(for: type, key: key)
            let store = try configuration.store(for: group)
            try await storeCall { () async throws(StoreError) in try await store.set(value, forKey: key) }
            return .null
        }
        switch method {
        case .get:
            let key = try arguments.string("key")
            let store = try configuration.store(for: group)
            return try await storeCall { () async throws(StoreError) in try await store.value(forKey: key) } ?? .null
        case .getAll:
            let store = try configuration.store(for: group)
            let entries = try await storeCall { () async throws(StoreError) in try await store.allValues() }
            return .map(entries.map { StandardValue.MapEntry(.string($0.key), $0.value) })
        case .remove:
            let key = try arguments.string("key")
            let store = try configuration.store(for: group)
            try await storeCall { () async throws(StoreError) in try await store.remove(key) }
            return .null
        case .removeAll:
            let store = try configuration.store(for: group)
            try await storeCall { () async throws(StoreError) in try await store.removeAll() }
            return .null
        default:
            // Every other method is a getter or setter, answered above.
            throw MethodNotImplemented()
        }
    }
}
