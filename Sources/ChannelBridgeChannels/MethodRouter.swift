public import ChannelBridgeCodec

/// Answers a channel's method calls with one typed function per method: arguments decoded with
/// `StandardValueDecoder`, results encoded with `StandardValueEncoder`.
///
/// - A method with no route answers "not implemented" (a null reply), as Flutter's
///   `result.notImplemented()`.
/// - Arguments that do not decode as the route's type answer `MethodError` with code
///   `INVALID_ARGUMENTS` and the decoding error's message, e.g. "`user.tags[2]`: expected a
///   String, found int32 3"; the function is not called.
/// - A function that throws `MethodError` answers with it; any other error answers code `"error"`
///   with its description, as any `MethodChannel` handler does.
///
/// ```swift
/// struct UserQuery: Codable { var id: Int }
/// struct User: Codable { var id: Int; var name: String }
///
/// channel.setMethodCallHandler(MethodRouter { router in
///     router.on("getUser") { (query: UserQuery) in try await store.user(query.id) }   // -> User
///     router.on("deleteUser") { (query: UserQuery) in try await store.delete(query.id) }
///     router.on("count") { await store.count }
/// })
///
/// let user = try await channel.invokeMethod("getUser", arguments: UserQuery(id: 7), as: User.self)
/// ```
///
/// A plugin registers one with `registrar.addMethodCallDelegate(router, channel:)`.
public struct MethodRouter: Sendable {
    /// One method: the call in, the reply value out, with the router's coders.
    typealias Route = @Sendable (MethodCall, StandardValueEncoder, StandardValueDecoder) async throws -> StandardValue

    private var routes: [String: Route] = [:]
    /// Encodes every result (e.g. with `.typedLists`).
    public var encoder: StandardValueEncoder
    /// Decodes every call's arguments.
    public var decoder: StandardValueDecoder

    public init(
        encoder: StandardValueEncoder = StandardValueEncoder(), decoder: StandardValueDecoder = StandardValueDecoder()
    ) {
        self.encoder = encoder
        self.decoder = decoder
    }

    /// A router with the routes `build` adds.
    public init(
        encoder: StandardValueEncoder = StandardValueEncoder(), decoder: StandardValueDecoder = StandardValueDecoder(),
        _ build: (inout MethodRouter) throws -> Void
    ) rethrows {
        self.init(encoder: encoder, decoder: decoder)
        try build(&self)
    }

    /// The methods that have a route, sorted.
    public var methods: [String] { routes.keys.sorted() }

    /// Routes `method` to `handler`: its arguments decoded as `Arguments`, its result encoded.
    /// A later route for the same method replaces the earlier one.
    public mutating func on<Arguments: Decodable & SendableMetatype, Result: Encodable & SendableMetatype>(
        _ method: String, _ handler: @escaping @Sendable (Arguments) async throws -> Result
    ) {
        routes[method] = { call, encoder, decoder in
            let arguments = try Self.decodeArguments(call, as: Arguments.self, decoder)
            return try Self.encodeResult(try await handler(arguments), of: call, encoder)
        }
    }

    /// Routes `method` to a handler with no result: the caller gets null.
    public mutating func on<Arguments: Decodable & SendableMetatype>(
        _ method: String,
        _ handler: @escaping @Sendable (Arguments) async throws -> Void
    ) {
        routes[method] = { call, _, decoder in
            try await handler(try Self.decodeArguments(call, as: Arguments.self, decoder))
            return .null
        }
    }

    /// Routes `method` to a handler that takes no arguments (whatever the call carries is ignored,
    /// as a Flutter handler that never reads `call.arguments` does).
    public mutating func on<Result: Encodable & SendableMetatype>(
        _ method: String, _ handler: @escaping @Sendable () async throws -> Result
    ) {
        routes[method] = { call, encoder, _ in
            try Self.encodeResult(try await handler(), of: call, encoder)
        }
    }

    /// Routes `method` to a handler with neither arguments nor result.
    public mutating func on(_ method: String, _ handler: @escaping @Sendable () async throws -> Void) {
        routes[method] = { _, _, _ in
            try await handler()
            return .null
        }
    }

    /// Answers one call: what `MethodChannel.setMethodCallHandler` and a plugin's
    /// `MethodCallDelegate` do with it.
    ///
    /// - Throws: `MethodNotImplemented` for a method with no route; `MethodError` with code
    ///   `INVALID_ARGUMENTS` for arguments that do not decode; whatever the route's handler throws.
    public func handle(_ call: MethodCall) async throws -> StandardValue {
        guard let route = routes[call.method] else { throw MethodNotImplemented() }
        return try await route(call, encoder, decoder)
    }

    private static func decodeArguments<Arguments: Decodable>(
        _ call: MethodCall, as type: Arguments.Type,
        _ decoder: StandardValueDecoder
    ) throws(MethodError) -> Arguments {
        do {
            return try decoder.decode(Arguments.self, from: call.arguments)
        } catch let error as DecodingError {
            throw MethodError(code: "INVALID_ARGUMENTS", message: StandardValueDecoder.message(for: error))
        } catch let error as MethodError {
            // A hand-written init(from:) that validates answers as it chose.
            throw error
        } catch {
            // Anything else a hand-written init(from:) throws is still about the arguments.
            throw MethodError(code: "INVALID_ARGUMENTS", message: String(describing: error))
        }
    }

    private static func encodeResult(
        _ result: some Encodable, of call: MethodCall,
        _ encoder: StandardValueEncoder
    ) throws(MethodError) -> StandardValue {
        do {
            return try encoder.encode(result)
        } catch let error as EncodingError {
            throw MethodError(
                code: "error",
                message: "Cannot encode the result of \(call.method): \(StandardValueEncoder.message(for: error))")
        } catch {
            throw MethodError(code: "error", message: "Cannot encode the result of \(call.method): \(error)")
        }
    }
}
