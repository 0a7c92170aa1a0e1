import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// A typed plugin (a `MethodRouter` and a stream of Codable events) registered by name on every
/// session of a real Unix-socket listener, called with typed and with wrongly typed arguments.
@Suite struct TypedPluginOverSocketTests {
    struct Note: Codable, Equatable, Sendable {
        var title: String
        var tags: [String]
        var body: String?
        var attachment: [UInt8]?
    }

    struct NoteID: Codable, Equatable {
        var id: Int
    }

    /// Notes by id, per session, and a stream of every note so far.
    enum NotesPlugin: Plugin {
        static func register(with registrar: PluginRegistrar) throws {
            let notes = Notes()
            registrar.addMethodCallDelegate(
                MethodRouter { router in
                    router.on("add") { (note: Note) in NoteID(id: notes.add(note)) }
                    router.on("get") { (query: NoteID) in notes.get(query.id) }
                    router.on("count") { notes.count }
                }, channel: MethodChannel(name: "test/notes", messenger: registrar.messenger))
            registrar.addStreamHandler(
                notes, channel: EventChannel(name: "test/notes/all", messenger: registrar.messenger))
        }
    }

    final class Notes: StreamHandler {
        private let notes = LockedValue<[Note]>([])

        func add(_ note: Note) -> Int {
            notes.withLock {
                $0.append(note); return $0.count - 1
            }
        }
        func get(_ id: Int) -> Note? { notes.withLock { $0.indices.contains(id) ? $0[id] : nil } }
        var count: Int { notes.withLock { $0.count } }

        func onListen(arguments: StandardValue, events: EventSink) async throws {
            for note in notes.withLock({ $0 }) { try events.success(encoding: note) }
            events.error(MethodError(code: "END_OF_NOTES", message: "that was all"))
            events.endOfStream()
        }

        func onCancel(arguments: StandardValue) async throws {}
    }

    /// A listener whose every session registers the plugin by name, and a connected client.
    func withNotes(_ body: @escaping @Sendable (SocketConnection) async throws -> Void) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard { () async throws in
            let listener = try SocketListener(path: directory.path + "/notes.sock") { session in
                let registry = PluginRegistry(messenger: session.messenger)
                do {
                    try NotesPlugin.register(with: try registry.registrar(forPlugin: "NotesPlugin"))
                } catch {
                    Issue.record("registration failed: \(error)")
                }
            }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let outcome: Result<Void, any Error>
            do { outcome = .success(try await body(client)) } catch { outcome = .failure(error) }
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
            try outcome.get()
        }
    }

    @Test func typedCallsAndEventsOverASocket() async throws {
        try await withNotes { client in
            let notes = MethodChannel(name: "test/notes", messenger: client.messenger)
            let first = Note(title: "Groceries", tags: ["home"], body: nil, attachment: [0, 255])
            let second = Note(title: "Ideas", tags: [], body: "a bridge", attachment: nil)
            #expect(try await notes.invokeMethod("add", arguments: first, as: NoteID.self) == NoteID(id: 0))
            #expect(try await notes.invokeMethod("add", arguments: second, as: NoteID.self) == NoteID(id: 1))
            #expect(try await notes.invokeMethod("get", arguments: NoteID(id: 0), as: Note?.self) == first)
            #expect(try await notes.invokeMethod("get", arguments: NoteID(id: 9), as: Note?.self) == nil)
            // The wire form is what a Dart caller sees: a map in declaration order, nil as null.
            #expect(
                try await notes.invokeMethod("get", arguments: ["id": 1])
                    == .map([
                        "title": "Ideas", "tags": [], "body": "a bridge", "attachment": nil,
                    ]))

            var events: [Result<Note, MethodError>] = []
            for try await event in EventChannel(name: "test/notes/all", messenger: client.messenger)
                .receiveBroadcastStream(as: Note.self)
            {
                events.append(event)
            }
            #expect(
                events == [
                    .success(first), .success(second),
                    .failure(MethodError(code: "END_OF_NOTES", message: "that was all")),
                ])
        }
    }

    @Test func wronglyTypedArgumentsAnswerInvalidArgumentsAndTheSessionGoesOn() async throws {
        try await withNotes { client in
            let notes = MethodChannel(name: "test/notes", messenger: client.messenger)
            // What a Dart caller might send by mistake.
            let cases: [(String, StandardValue, String)] = [
                ("add", ["title": "t", "tags": [1]], "`tags[0]`: expected a String, found int32 1"),
                (
                    "add", ["title": "t", "tags": [], "attachment": ["x"]],
                    "`attachment[0]`: expected an int, found String \"x\""
                ),
                ("add", ["tags": []], "`title`: missing"),
                ("add", ["title": nil, "tags": []], "`title`: expected a String, found null"),
                ("get", ["id": 1.5], "`id`: expected an int, found double 1.5"),
                ("get", .list([1]), "expected a Map, found List of 1 element"),
            ]
            for (method, arguments, message) in cases {
                await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: message)) {
                    try await notes.invokeMethod(method, arguments: arguments)
                }
            }
            // A Swift caller passing the wrong type gets the same answer.
            await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: "`id`: missing")) {
                try await notes.invokeMethod("get", arguments: Note(title: "t", tags: []), as: Note?.self)
            }
            let missing = try await #require(throws: ChannelError.self) {
                try await notes.invokeMethod("delete", arguments: NoteID(id: 0), as: Void.self)
            }
            #expect(missing.code == .notImplemented && missing.method == "delete" && missing.channel == "test/notes")
            // Nothing was added by the refused calls, and the session still serves.
            #expect(try await notes.invokeMethod("count", as: Int.self) == 0)
            #expect(
                try await notes.invokeMethod("add", arguments: Note(title: "ok", tags: []), as: NoteID.self)
                    == NoteID(id: 0))
        }
    }
}
