public import ChannelBridgeCodec

// Typed calls: arguments any Encodable, results decoded as the type asked for, through
// StandardValueEncoder / StandardValueDecoder on top of the untyped invokeMethod.
extension MethodChannel {
    /// Calls `method` with `arguments` encoded as Standard values and decodes its result as `Result`.
    ///
    /// ```swift
    /// let user = try await channel.invokeMethod("getUser", arguments: UserQuery(id: 7), as: User.self)
    /// let name = try await channel.invokeMethod("getName", arguments: ["id": 7], as: String?.self)
    /// ```
    ///
    /// - Throws: what `invokeMethod(_:arguments:timeout:)` throws; `ChannelError` with code
    ///   `unencodable` when the arguments cannot be encoded, or `malformedReply` when the result
    ///   does not decode as `Result` (its message names the path, as `StandardValueDecoder.message(for:)`).
    nonisolated(nonsending) public func invokeMethod<Result: Decodable>(
        _ method: String, arguments: some Encodable, as type: Result.Type, timeout: Duration? = nil,
        encoder: StandardValueEncoder = StandardValueEncoder(), decoder: StandardValueDecoder = StandardValueDecoder()
    ) async throws -> Result {
        let encoded = try encodeArguments(arguments, of: method, encoder)
        return try decodeResult(
            try await invokeMethod(method, arguments: encoded, timeout: timeout), of: method, decoder)
    }

    /// Calls `method` with no arguments (null) and decodes its result as `Result`.
    nonisolated(nonsending) public func invokeMethod<Result: Decodable>(
        _ method: String, as type: Result.Type, timeout: Duration? = nil,
        decoder: StandardValueDecoder = StandardValueDecoder()
    ) async throws -> Result {
        try decodeResult(try await invokeMethod(method, arguments: .null, timeout: timeout), of: method, decoder)
    }

    /// Calls `method` with `arguments` and ignores its result, as Dart's `invokeMethod<void>`.
    nonisolated(nonsending) public func invokeMethod(
        _ method: String, arguments: some Encodable, as type: Void.Type, timeout: Duration? = nil,
        encoder: StandardValueEncoder = StandardValueEncoder()
    ) async throws {
        _ = try await invokeMethod(
            method, arguments: try encodeArguments(arguments, of: method, encoder), timeout: timeout)
    }

    /// Calls `method` with no arguments and ignores its result.
    nonisolated(nonsending) public func invokeMethod(
        _ method: String, as type: Void.Type, timeout: Duration? = nil
    ) async throws {
        _ = try await invokeMethod(method, arguments: .null, timeout: timeout)
    }

    /// Answers this channel's calls with `router`: one typed function per method, "not implemented"
    /// for the others. Replaces any handler this channel had; `setMethodCallHandler(nil)` removes it.
    public func setMethodCallHandler(_ router: MethodRouter) {
        setMethodCallHandler { call in try await router.handle(call) }
    }

    private func encodeArguments(
        _ arguments: some Encodable, of method: String,
        _ encoder: StandardValueEncoder
    ) throws(ChannelError) -> StandardValue {
        do {
            return try encoder.encode(arguments)
        } catch {
            throw ChannelError(
                .unencodable, "Cannot encode the arguments of \(method): \(codingErrorMessage(error))",
                channel: name, method: method)
        }
    }

    private func decodeResult<Result: Decodable>(
        _ value: StandardValue, of method: String,
        _ decoder: StandardValueDecoder
    ) throws(ChannelError) -> Result {
        do {
            return try decoder.decode(Result.self, from: value)
        } catch {
            throw ChannelError(
                .malformedReply, "The result of \(method) is not \(Result.self): \(codingErrorMessage(error))",
                channel: name, method: method)
        }
    }
}
