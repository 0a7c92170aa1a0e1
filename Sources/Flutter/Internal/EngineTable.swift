import ChannelBridgeMessenger
import Synchronization

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

    private static let engines = Mutex<[ObjectIdentifier: Entry]>([:])

    static func engine(for messenger: any BinaryMessenger, make: () -> FlutterEngine) -> FlutterEngine {
        let key = ObjectIdentifier(messenger)
        return engines.withLock { engines in
            if let existing = engines[key]?.engine, !existing.isDestroyed { return existing }
            let engine = make()
            engines[key] = Entry(engine: engine)
            return engine
        }
    }

    static func remove(_ engine: FlutterEngine) {
        let key = ObjectIdentifier(engine.sessionMessenger)
        engines.withLock { engines in
            if engines[key]?.engine === engine || engines[key]?.engine == nil { engines[key] = nil }
        }
    }
}
