import ChannelBridgeMessenger
import ChannelBridgePlatform

/// One `onClose` registration per messenger for all of its event channels, instead of one per
/// `EventChannel` object. `BinaryMessenger.onClose` has no way to unregister, so a callback per
/// object would keep every `EventChannel` ever made on a long-lived connection (and what it
/// holds) until that connection ends: memory growing with each channel object. Here a messenger
/// keeps one callback, and the registry keeps the observers that are live — a listener's
/// subscription until its stream ends, an owner until it is replaced or removed — so what it holds
/// is bounded by the streams and handlers in use, and by the messengers alive.
final class CloseObservers: Sendable {
    static let shared = CloseObservers()

    private struct Entry {
        weak var messenger: (any BinaryMessenger)?
        var observers: [ObjectIdentifier: any CloseObserver] = [:]
    }

    private let entries = LockedValue<[ObjectIdentifier: Entry]>([:])

    /// Calls `observer.connectionClosed(_:)` once, when `messenger` closes (or at once if it has).
    func add(_ observer: any CloseObserver, for messenger: any BinaryMessenger) {
        let key = ObjectIdentifier(messenger)
        let registerWithMessenger = entries.withLock { entries -> Bool in
            // Entries of messengers that are gone (released without closing) are dropped here, so
            // the table never outgrows the messengers alive.
            entries = entries.filter { $0.value.messenger != nil }
            var isNew = false
            var entry: Entry
            if let existing = entries[key], existing.messenger === messenger {
                entry = existing
            } else {
                // A new messenger (its address may be a dead one's: the weak reference tells).
                entry = Entry(messenger: messenger)
                isNew = true
            }
            entry.observers[ObjectIdentifier(observer)] = observer
            entries[key] = entry
            return isNew
        }
        guard registerWithMessenger else { return }
        // Outside the lock: a closed messenger may call back at once.
        messenger.onClose { [weak self, weak messenger] error in
            guard let self else { return }
            let observers = self.entries.withLock { entries -> [any CloseObserver] in
                guard let entry = entries[key], entry.messenger == nil || entry.messenger === messenger else {
                    return []
                }
                entries[key] = nil
                return Array(entry.observers.values)
            }
            for observer in observers { observer.connectionClosed(error) }
        }
    }
}

extension CloseObservers {
    /// `observer` no longer needs to hear of `messenger`'s end (its stream ended, it was replaced).
    func remove(_ observer: any CloseObserver, for messenger: any BinaryMessenger) {
        entries.withLock { entries in
            let key = ObjectIdentifier(messenger)
            guard entries[key]?.messenger === messenger else { return }
            entries[key]?.observers[ObjectIdentifier(observer)] = nil
        }
    }
}

/// What `CloseObservers` tells when a messenger closes.
protocol CloseObserver: AnyObject, Sendable {
    func connectionClosed(_ error: MessengerError)
}
