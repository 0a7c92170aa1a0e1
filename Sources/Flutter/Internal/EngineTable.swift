import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The engine of each live session, found by its messenger: how Flutter plugins registered by
/// name (which get a native registrar, not the registry) and `FlutterEngine.engine(for:)` share
/// one engine, and so one platform executor, per session.
///
/// An engine holds its messenger, so the messenger's identity is not reused while the engine is
/// in the table; an engine leaves it when torn down.
enum EngineTable {
    private struct Entry {
        weak var engine: FlutterEngine?
    }

    private static let engines = LockedValue<[ObjectIdentifier: Entry]>([:])

    /// The session's live engine, or the one `make` makes (which files itself as it is made).
    static func engine(for messenger: any BinaryMessenger, make: () -> FlutterEngine) -> FlutterEngine {
        if let existing = live(for: messenger) { return existing }
        let made = make()
        // Two callers may race to make one; the first filed is the session's.
        return live(for: messenger) ?? made
    }

    private static func live(for messenger: any BinaryMessenger) -> FlutterEngine? {
        engines.withLock { engines in
            guard let engine = engines[ObjectIdentifier(messenger)]?.engine, !engine.isDestroyed else { return nil }
            return engine
        }
    }

    /// Files `engine` under its messenger unless the session already has a live engine.
    static func add(_ engine: FlutterEngine) {
        let key = ObjectIdentifier(engine.sessionMessenger)
        engines.withLock { engines in
            if let existing = engines[key]?.engine, !existing.isDestroyed { return }
            engines[key] = Entry(engine: engine)
        }
    }

    static func remove(_ engine: FlutterEngine) {
        let key = ObjectIdentifier(engine.sessionMessenger)
        engines.withLock { engines in
            if engines[key]?.engine === engine || engines[key]?.engine == nil { engines[key] = nil }
        }
    }
}
