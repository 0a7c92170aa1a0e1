public import ChannelBridgeChannels
public import ChannelBridgeCodec
public import ChannelBridgeMessenger

/// A messenger for unit tests of code that uses channels — a plugin, or an app that calls one —
/// with the other side played by the test, in the spirit of Flutter's `TestDefaultBinaryMessenger`.
///
/// Give the code under test `messenger`. It is one end of an in-memory connection pair, so every
/// message goes through the real frame encoder and decoder; the test owns the other end:
/// - mock handlers answer what the code under test sends: `setMockMethodCallHandler`,
///   `setMockMessageHandler`, `setMockStreamHandler`, with `allMessagesHandler` seeing every
///   message first;
/// - `invokeMethod`, `send`, `post` and `receiveBroadcastStream` call the handlers the code under
///   test installed, as a real peer would (Flutter's `handlePlatformMessage`);
/// - `recorder` lists every message that crossed, both ways, decoded, with its reply.
///
/// ```swift
/// // An app that calls a platform channel:
/// let test = TestMessenger(role: .client)
/// test.setMockMethodCallHandler(channel: "example/battery") { call in
///     switch call.method {
///     case "getLevel": return 87
///     default: throw MethodNotImplemented()          // the caller gets ChannelError.notImplemented
///     }
/// }
/// let battery = MethodChannel(name: "example/battery", messenger: test.messenger)
/// #expect(try await battery.invokeMethod("getLevel") == 87)
///
/// // A plugin, driven from the test's side:
/// let plugins = TestMessenger()
/// try await PluginRegistry(messenger: plugins.messenger).register(GreeterPlugin.self)
/// #expect(try await plugins.invokeMethod(channel: "example/greeter", method: "greet", arguments: ["name": "Ada"])
///         == "Hello, Ada!")
/// #expect(plugins.recorder.calls(on: "example/greeter").map(\.method) == ["greet"])
/// plugins.close()
/// ```
///
/// Without a mock handler, a request from the code under test gets a null reply, as from a peer
/// with no handler on the channel (`invokeMethod` throws `ChannelError.notImplemented`). One mock
/// per channel: setting one replaces whatever mock the channel had. The two connections hold each
/// other until the session ends: call `close()` when done.
public final class TestMessenger: Sendable {
    /// Sees every message the code under test sends (requests and one-way messages alike) before
    /// any mock handler: called with the channel, the message and `passThrough`. Return the reply (`nil` for a null reply), throw to fail the request
    /// (`MessengerError.handlerFailed` for the sender), or pass the message on with
    /// `try await passThrough(message)`, which runs the channel's mock handler (a null reply when
    /// there is none).
    public typealias AllMessagesHandler = @Sendable (String, [UInt8]?, BinaryMessageHandler) async throws -> [UInt8]?

    private let core: TestMessengerCore

    /// The messenger to give the code under test.
    public let messenger: any BinaryMessenger

    /// The test's end of the connection, for building any channel on the other side by hand, e.g.
    /// `BasicMessageChannel(name: "example/log", messenger: test.peer, codec: StringCodec())`.
    /// Handlers installed on it are mock handlers; what it sends is recorded as received by the
    /// code under test.
    public let peer: any BinaryMessenger

    /// - Parameter role: the role of the code under test's end: `.host` (the default) for plugins,
    ///   which run in a host; `.client` for an app calling a host. The test's end has the other.
    public convenience init(role: PeerRole = .host) {
        self.init(core: TestMessengerCore(codeUnderTestRole: role))
    }

    /// A test messenger that hands `observe` the bytes delivered to the code under test, in the
    /// order they cross: for tests of the order frames arrive in (the kit's own tests).
    package convenience init(role: PeerRole, observingCodeUnderTestInput observe: @escaping @Sendable ([UInt8]) -> Void)
    {
        self.init(core: TestMessengerCore(codeUnderTestRole: role, observingCodeUnderTestInput: observe))
    }

    private init(core: TestMessengerCore) {
        self.core = core
        self.messenger = CodeUnderTestMessenger(core: core)
        self.peer = PeerMessenger(core: core)
    }

    /// Every message that crossed, both ways.
    public var recorder: MessageRecorder { core.recorder }

    /// The interceptor that sees every message the code under test sends before the mock handlers;
    /// `nil` (the default) lets each message go straight to its channel's mock handler.
    ///
    /// ```swift
    /// test.allMessagesHandler = { channel, message, passThrough in
    ///     if channel.hasPrefix("example/") { return try await passThrough(message) }
    ///     return nil                                  // every other channel: "not implemented"
    /// }
    /// ```
    public var allMessagesHandler: AllMessagesHandler? {
        get { core.allMessagesHandler }
        set { core.allMessagesHandler = newValue }
    }

    /// Whether `channel` has a mock handler of any kind.
    public func hasMockHandler(channel: String) -> Bool {
        core.hasHandler(on: channel)
    }

    // MARK: Mocks

    /// Answers the method calls the code under test makes on `channel` with `handler` (`nil`
    /// removes the mock), with `MethodChannel` semantics: the returned value is a success
    /// envelope, a thrown `MethodError` an error envelope, a thrown `MethodNotImplemented` a null
    /// reply, anything else thrown an error envelope with code `"error"`.
    ///
    /// - Parameter codec: the channel's codec; also used from now on to decode the channel's
    ///   records and by `invokeMethod` on the channel. Default: the channel's codec so far
    ///   (`StandardMethodCodec` unless set).
    ///
    /// ```swift
    /// test.setMockMethodCallHandler(channel: "shared_preference_app_group") { call in
    ///     guard call.method == "getString" else { throw MethodNotImplemented() }
    ///     throw MethodError(code: "APP_GROUP_HAS_NOT_BEEN_SET", message: "call setAppGroup first")
    /// }
    /// ```
    public func setMockMethodCallHandler(
        channel: String, codec: (any MethodCodec)? = nil,
        _ handler: MethodChannel.Handler?
    ) {
        core.retireStreamChannel(channel)
        guard let handler else {
            peer.setMessageHandler(onChannel: channel, nil)
            return
        }
        MethodChannel(name: channel, messenger: peer, codec: useCodec(codec, for: channel))
            .setMethodCallHandler(handler)
    }

    /// Answers the raw messages the code under test sends on `channel` (`nil` removes the mock):
    /// return the reply bytes, `nil` for a null reply; a thrown error fails the request
    /// (`MessengerError.handlerFailed`).
    ///
    /// ```swift
    /// test.setMockMessageHandler(channel: "example/echo") { message in message }
    /// ```
    public func setMockMessageHandler(channel: String, _ handler: BinaryMessageHandler?) {
        core.retireStreamChannel(channel)
        peer.setMessageHandler(onChannel: channel, handler)
    }

    /// Answers the messages a `BasicMessageChannel` of the code under test sends on `channel`,
    /// decoded and encoded with `codec` (`nil` removes the mock).
    ///
    /// ```swift
    /// test.setMockMessageHandler(channel: "example/log", codec: StringCodec()) { line in "logged: \(line ?? "")" }
    /// ```
    public func setMockMessageHandler<Codec: MessageCodec>(
        channel: String, codec: Codec,
        _ handler: BasicMessageChannel<Codec>.Handler?
    ) {
        core.retireStreamChannel(channel)
        guard let handler else {
            peer.setMessageHandler(onChannel: channel, nil)
            return
        }
        BasicMessageChannel(name: channel, messenger: peer, codec: codec).setMessageHandler(handler)
    }

    /// Plays the owner of the event channel `channel` for a listener in the code under test, with
    /// `EventChannel` semantics (`nil` removes the mock, which ends its active stream). Usually a
    /// `MockStreamHandler`, which records `listen` and `cancel` and hands the test the sink.
    ///
    /// - Parameter codec: the channel's codec, as for `setMockMethodCallHandler`.
    ///
    /// ```swift
    /// let ticks = MockStreamHandler()
    /// test.setMockStreamHandler(channel: "example/ticks", ticks)
    /// ```
    public func setMockStreamHandler(
        channel: String, codec: (any MethodCodec)? = nil,
        _ handler: (any StreamHandler)?
    ) {
        core.retireStreamChannel(channel)
        guard let handler else {
            peer.setMessageHandler(onChannel: channel, nil)
            return
        }
        let eventChannel = EventChannel(name: channel, messenger: peer, codec: useCodec(codec, for: channel))
        eventChannel.setStreamHandler(handler)
        core.keepStreamChannel(eventChannel)
    }

    // MARK: Driving the code under test

    /// Calls `method` on the handler the code under test installed on `channel`, as a peer would,
    /// and returns its result.
    ///
    /// - Throws: what `MethodChannel.invokeMethod` throws: the handler's `MethodError`,
    ///   `ChannelError.notImplemented` for a null reply (no handler, or `MethodNotImplemented`), …
    public func invokeMethod(
        channel: String, method: String, arguments: StandardValue = .null,
        codec: (any MethodCodec)? = nil
    ) async throws -> StandardValue {
        try await MethodChannel(name: channel, messenger: peer, codec: useCodec(codec, for: channel))
            .invokeMethod(method, arguments: arguments)
    }

    /// Sends raw bytes to the handler the code under test installed on `channel` and returns its
    /// reply (`nil` for a null reply). Throws `MessengerError.handlerFailed` when the handler threw.
    @discardableResult
    public func send(channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        do {
            return try await peer.send(onChannel: channel, message: message)
        } catch var error as MessengerError {
            if error.channel == nil { error.channel = channel }
            throw error
        }
    }

    /// Sends a one-way message to the handler the code under test installed on `channel`; its
    /// reply is dropped.
    public func post(channel: String, message: [UInt8]?) throws {
        try peer.post(onChannel: channel, message: message)
    }

    /// Listens to an event channel the code under test owns, as `EventChannel.receiveBroadcastStream`
    /// does from the test's side.
    public func receiveBroadcastStream(
        channel: String, arguments: StandardValue = .null, codec: (any MethodCodec)? = nil
    ) -> AsyncThrowingStream<EventChannel.Event, any Error> {
        EventChannel(name: channel, messenger: peer, codec: useCodec(codec, for: channel))
            .receiveBroadcastStream(arguments: arguments)
    }

    /// Ends the session from the test's side, as a peer that goes away: the code under test's
    /// pending calls fail with `connectionClosed`, its close callbacks run (event-channel owners
    /// cancel their streams), and its later sends fail.
    public func close() {
        core.testConnection.close(waitForOwedReplies: false)
    }

    /// Registers `codec` for `channel` when given; returns the channel's codec.
    private func useCodec(_ codec: (any MethodCodec)?, for channel: String) -> any MethodCodec {
        if let codec {
            recorder.setCodec(codec, forChannel: channel)
            return codec
        }
        return recorder.codec(forChannel: channel)
    }
}
