import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeStore
import Foundation

/// Foundation's `UserDefaults` as an app extension sees it on iOS: in a host that has an app
/// sandbox (a Flutter-style host started by `ExtensionHostCommand.main`), a suite named after an
/// entitled app group is that group's store — the data the `shared_preference_app_group` channel
/// and `channelbridge prefs` read and write, shared with every process of the data directory —
/// and the standard suite and any other suite are the app's own, kept under its sandbox. Every
/// write is durable when it returns (the store's commit), so `synchronize()` has nothing left
/// to do; changes reach the store's change streams as any write does.
///
/// It takes the place of Foundation's class in a file that imports `Flutter` and not
/// `Foundation` (this module re-exports Foundation; a file importing both sees two classes and
/// fails to compile with "ambiguous use"). Without a sandbox (no host installed one) it is
/// Foundation's `UserDefaults` unchanged.
///
/// ```swift
/// import Flutter
///
/// let shared = UserDefaults(suiteName: "group.com.example.app")
/// shared?.set(["first"], forKey: "items")      // durable, and seen by the containing app
/// ```
///
/// Values are property-list values, mapped to the store's typed values as the Standard codec maps
/// them: `Bool`, integers (a Swift `Int` as int64), `Double`/`Float`, `String`, `Data`
/// (a uint8 list), arrays and string-keyed dictionaries of these; a `URL` is stored as its path,
/// as Foundation does, and a `Date` as its seconds since 1970 (float64; it reads back as a
/// `Double`). Reading gives Swift values (`Int`, `Double`, `Bool`, `String`, `Data`, `[Any]`,
/// `[String: Any]`), as Foundation's `object(forKey:)` does on Linux. A value registered with
/// `register(defaults:)` is answered when the store has none. Writing any other value traps, as
/// Foundation's `set(_:forKey:)` does; a store that cannot be read or written is logged and reads
/// as empty.
open class UserDefaults: Foundation.UserDefaults {
    private let store: AppGroupPreferences?

    /// The suite `suiteName` (`nil`: the standard one); `nil` for the app's bundle identifier and
    /// `NSGlobalDomain`, which are not suites, and for a name that is not one directory name.
    public override init?(suiteName: String?) {
        if let sandbox = AppSandbox.current {
            do {
                guard let store = try sandbox.preferences(forSuite: suiteName) else { return nil }
                self.store = store
            } catch {
                FlutterLog.error("UserDefaults(suiteName: \(suiteName.debugDescription)): \(error.message)")
                return nil
            }
        } else {
            store = nil
        }
        super.init(suiteName: suiteName)
    }

    private struct StandardDefaults: @unchecked Sendable {
        // Sendable: both fields are immutable; the defaults object synchronizes itself (its state is the store's).
        let sandbox: ObjectIdentifier?
        let defaults: UserDefaults
    }

    private static let standardDefaults = LockedValue<StandardDefaults?>(nil)

    /// The app's standard suite: one object per sandbox.
    open override class var standard: Foundation.UserDefaults {
        let sandbox = AppSandbox.current.map(ObjectIdentifier.init)
        if let cached = standardDefaults.withLock({ $0 }), cached.sandbox == sandbox { return cached.defaults }
        let made = StandardDefaults(sandbox: sandbox, defaults: UserDefaults(suiteName: nil)!)
        return standardDefaults.withLock { cached -> StandardDefaults in
            if let cached, cached.sandbox == sandbox { return cached }
            cached = made
            return made
        }.defaults
    }

    open override func object(forKey defaultName: String) -> Any? {
        guard let store else { return super.object(forKey: defaultName) }
        do {
            if let value = try store.blockingValue(forKey: defaultName) { return PropertyListValues.object(value) }
        } catch {
            FlutterLog.error("UserDefaults \(store.appGroup): cannot read '\(defaultName)': \(error.message)")
        }
        // The registration domain (and the command line's arguments domain).
        return super.object(forKey: defaultName)
    }

    open override func set(_ value: Any?, forKey defaultName: String) {
        guard let store else { return super.set(value, forKey: defaultName) }
        let stored: StandardValue?
        if let value {
            guard let converted = PropertyListValues.standardValue(value) else {
                fatalError(
                    "UserDefaults: a \(Swift.type(of: value)) under '\(defaultName)' is not a property-list value")
            }
            stored = converted
        } else {
            stored = nil
        }
        do {
            try store.blockingSet(stored, forKey: defaultName)
        } catch {
            FlutterLog.error("UserDefaults \(store.appGroup): cannot write '\(defaultName)': \(error.message)")
        }
    }

    /// Stores an `Int` as the int64 it is. (Foundation's own `set(_: Int, forKey:)` wraps it in an
    /// `NSNumber`, which Core Foundation on Linux keeps in 4 bytes when it fits: an int32.)
    open override func set(_ value: Int, forKey defaultName: String) {
        set(value as Any?, forKey: defaultName)
    }

    open override func removeObject(forKey defaultName: String) {
        set(nil as Any?, forKey: defaultName)
    }

    open override func dictionaryRepresentation() -> [String: Any] {
        guard let store else { return super.dictionaryRepresentation() }
        var all = super.dictionaryRepresentation()
        for (key, value) in Self.stored(in: store) { all[key] = value }
        return all
    }

    /// The values stored in the suite `domainName`; for the bundle identifier, the standard suite's.
    open override func persistentDomain(forName domainName: String) -> [String: Any]? {
        guard let sandbox = AppSandbox.current else { return super.persistentDomain(forName: domainName) }
        let suite = domainName == sandbox.bundleIdentifier ? nil : domainName
        guard let store = try? sandbox.preferences(forSuite: suite) else { return nil }
        return Self.stored(in: store)
    }

    open override func setPersistentDomain(_ domain: [String: Any], forName domainName: String) {
        guard let sandbox = AppSandbox.current else { return super.setPersistentDomain(domain, forName: domainName) }
        removePersistentDomain(forName: domainName)
        let suite = domainName == sandbox.bundleIdentifier ? nil : domainName
        guard let defaults = UserDefaults(suiteName: suite) else { return }
        for (key, value) in domain { defaults.set(value, forKey: key) }
    }

    open override func removePersistentDomain(forName domainName: String) {
        guard let sandbox = AppSandbox.current else { return super.removePersistentDomain(forName: domainName) }
        let suite = domainName == sandbox.bundleIdentifier ? nil : domainName
        guard let store = try? sandbox.preferences(forSuite: suite) else { return }
        do {
            try store.blockingRemoveAll()
        } catch {
            FlutterLog.error("UserDefaults \(store.appGroup): cannot remove every value: \(error.message)")
        }
    }

    /// Every write is durable when it returns.
    @discardableResult
    open override func synchronize() -> Bool {
        store == nil ? super.synchronize() : true
    }

    private static func stored(in store: AppGroupPreferences) -> [String: Any] {
        do {
            var values: [String: Any] = [:]
            for entry in try store.blockingAllValues() { values[entry.key] = PropertyListValues.object(entry.value) }
            return values
        } catch {
            FlutterLog.error("UserDefaults \(store.appGroup): cannot read the values: \(error.message)")
            return [:]
        }
    }
}
