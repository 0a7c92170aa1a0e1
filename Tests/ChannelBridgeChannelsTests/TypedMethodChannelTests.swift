import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Synchronization
import Testing

/// Typed calls (`invokeMethod(_:arguments:as:)`) and typed handlers (`MethodRouter`) over a real
/// pair of `MessengerConnection`s joined in memory, and the exact bytes a typed call sends.
@Suite struct TypedMethodChannelTests {
    struct UserQuery: Codable, Equatable {
        var id: Int
    }

    struct User: Codable, Equatable {
        var id: Int
        var name: String
        var tags: [String]
        var avatar: [UInt8]?
    }

    /// A query whose decoding validates, as a hand-written `init(from:)` may.
    struct Rename: Decodable {
        var name: String
        init(from decoder: any Decoder) throws {
            enum Keys: CodingKey { case name }
            name = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .name)
            guard !name.isEmpty else { throw MethodError(code: "EMPTY_NAME", message: "a name cannot be empty") }
        }
    }

    struct Huge: Encodable { var n: UInt64 }

    /// How many times the host's functions ran.
    final class Calls: Sendable {
        private let count = Atomic(0)
        func record() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// The host side of `test/users`: five methods, five small functions; every call it runs is counted.
    static func serveUsers(on messenger: any BinaryMessenger, calls: Calls) {
        let users = LockedValue([7: User(id: 7, name: "Ada", tags: ["math"], avatar: [1, 2])])
        MethodChannel(name: "test/users", messenger: messenger).setMethodCallHandler(
            MethodRouter { router in
                router.on("getUser") { (query: UserQuery) -> User? in
                    calls.record()
                    return users.withLock { $0[query.id] }
                }
                router.on("putUser") { (user: User) in
                    calls.record()
                    users.withLock { $0[user.id] = user }
                }
                router.on("count") { () -> Int in
                    calls.record()
                    return users.withLock { $0.count }
                }
                router.on("clear") {
                    calls.record()
                    users.withLock { $0.removeAll() }
                }
                router.on("rename") { (rename: Rename) -> String in
                    calls.record()
                    if rename.name == "fail" {
                        throw MethodError(code: "REFUSED", message: "not that name", details: 1)
                    }
                    return rename.name.uppercased()
                }
                router.on("huge") { Huge(n: .max) }
            })
    }

    func withUsers(_ body: @escaping @Sendable (MethodChannel, Calls) async throws -> Void) async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let calls = Calls()
        Self.serveUsers(on: host, calls: calls)
        try await withHangGuard { () async throws in
            try await body(MethodChannel(name: "test/users", messenger: client), calls)
        }
    }

    @Test func typedCallsAndResults() async throws {
        try await withUsers { channel, _ in
            let ada = try await channel.invokeMethod("getUser", arguments: UserQuery(id: 7), as: User?.self)
            #expect(ada == User(id: 7, name: "Ada", tags: ["math"], avatar: [1, 2]))
            #expect(try await channel.invokeMethod("getUser", arguments: UserQuery(id: 8), as: User?.self) == nil)

            let grace = User(id: 8, name: "Grace", tags: [], avatar: nil)
            try await channel.invokeMethod("putUser", arguments: grace, as: Void.self)
            #expect(try await channel.invokeMethod("getUser", arguments: UserQuery(id: 8), as: User.self) == grace)
            #expect(try await channel.invokeMethod("count", as: Int.self) == 2)
            try await channel.invokeMethod("clear", as: Void.self)
            #expect(try await channel.invokeMethod("count", as: Int.self) == 0)
            // What the router answers is plain Standard values, for untyped callers too.
            #expect(try await channel.invokeMethod("rename", arguments: ["name": "ada"]) == "ADA")
        }
    }

    @Test func aTypedCallSendsTheStandardBytesOfItsArguments() async throws {
        let messenger = RecordingMessenger { _, _ in hex("00 03 03000000") }  // success, int32 3
        let channel = MethodChannel(name: "test/add", messenger: messenger)
        struct Pair: Encodable { var a: Int32, b: String? }
        #expect(try await channel.invokeMethod("add", arguments: Pair(a: 1, b: nil), as: Int64.self) == 3)
        // "add", then a map {"a": int32 1, "b": null} in declaration order.
        #expect(
            messenger.entries.first
                == .request(channel: "test/add", message: hex("07 03 616464 0d 02 07 01 61 03 01000000 07 01 62 00")))
    }

    @Test func unknownMethodsAreNotImplemented() async throws {
        try await withUsers { channel, calls in
            let error = try await #require(throws: ChannelError.self) {
                try await channel.invokeMethod("deleteUser", arguments: UserQuery(id: 7), as: Void.self)
            }
            #expect(error.code == .notImplemented && error.channel == "test/users" && error.method == "deleteUser")
            #expect(calls.value == 0)
        }
    }

    @Test(
        arguments: [
            ("getUser", ["id": "seven"], "`id`: expected an int, found String \"seven\""),
            ("getUser", [:], "`id`: missing"),
            ("getUser", nil, "expected a Map, found null"),
            ("getUser", ["id": .int64(1 << 40)], nil),  // fits in Int: not an error
            ("putUser", ["id": 1, "name": "x", "tags": ["a", 2]], "`tags[1]`: expected a String, found int32 2"),
            (
                "putUser", ["id": 1, "name": "x", "tags": [], "avatar": "png"],
                "`avatar`: expected a Uint8List, found String \"png\""
            ),
            ("rename", ["name": .uint8List([1])], "`name`: expected a String, found Uint8List of 1 byte"),
        ] as [(String, StandardValue, String?)])
    func wrongArgumentTypesAnswerInvalidArguments(
        method: String, arguments: StandardValue, message: String?
    ) async throws {
        try await withUsers { channel, calls in
            guard let message else {
                _ = try await channel.invokeMethod(method, arguments: arguments)
                #expect(calls.value == 1)
                return
            }
            await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: message)) {
                try await channel.invokeMethod(method, arguments: arguments)
            }
            // The function was not called.
            #expect(calls.value == 0)
        }
    }

    @Test func errorsFromTheFunctionsAndTheirDecodersAreTheirs() async throws {
        try await withUsers { channel, _ in
            await #expect(throws: MethodError(code: "REFUSED", message: "not that name", details: 1)) {
                try await channel.invokeMethod("rename", arguments: ["name": "fail"], as: String.self)
            }
            await #expect(throws: MethodError(code: "EMPTY_NAME", message: "a name cannot be empty")) {
                try await channel.invokeMethod("rename", arguments: ["name": ""], as: String.self)
            }
            await #expect(
                throws: MethodError(
                    code: "error",
                    message:
                        "Cannot encode the result of huge: `n`: UInt64 18446744073709551615 does not fit in a Dart int (64-bit signed)"
                )
            ) {
                try await channel.invokeMethod("huge", as: Void.self)
            }
        }
    }

    @Test func aResultOfAnotherTypeIsAMalformedReply() async throws {
        try await withUsers { channel, _ in
            let error = try await #require(throws: ChannelError.self) {
                try await channel.invokeMethod("count", as: User.self)
            }
            #expect(
                error
                    == ChannelError(
                        .malformedReply, "The result of count is not User: expected a Map, found int32 1",
                        channel: "test/users", method: "count"))
        }
    }

    @Test func argumentsThatCannotBeEncodedAreNotSent() async throws {
        let messenger = RecordingMessenger()
        let channel = MethodChannel(name: "test/huge", messenger: messenger)
        let error = try await #require(throws: ChannelError.self) {
            try await channel.invokeMethod("store", arguments: [Huge(n: .max)], as: Void.self)
        }
        #expect(
            error
                == ChannelError(
                    .unencodable,
                    "Cannot encode the arguments of store: "
                        + "`[0].n`: UInt64 18446744073709551615 does not fit in a Dart int (64-bit signed)",
                    channel: "test/huge", method: "store"))
        #expect(messenger.entries.isEmpty)
    }

    @Test func aRouterListsItsMethodsAndALaterRouteReplacesAnEarlierOne() async throws {
        var router = MethodRouter()
        router.on("b") { "first" }
        router.on("a") {}
        router.on("b") { "second" }
        #expect(router.methods == ["a", "b"])
        #expect(try await router.handle(MethodCall("b")) == "second")
        #expect(try await router.handle(MethodCall("a", arguments: "ignored")) == .null)
        await #expect(throws: MethodNotImplemented()) { try await router.handle(MethodCall("c")) }
    }

    @Test func theRoutersCodersAreUsed() async throws {
        let router = MethodRouter(encoder: StandardValueEncoder(typedListStrategy: .typedLists)) { router in
            router.on("samples") { (count: Int32) in Array(0..<count) }
        }
        #expect(try await router.handle(MethodCall("samples", arguments: 3)) == .int32List([0, 1, 2]))
    }
}
