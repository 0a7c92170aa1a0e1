public import ChannelBridgeChannels
import ChannelBridgeCodec
public import ChannelBridgeMessenger

/// What a plugin registers itself with: one per plugin key in a `PluginRegistry` (Flutter's
/// `FlutterPluginRegistrar`).
///
/// Channel handlers installed through the registrar are removed, and teardown hooks run, when the
/// registry is torn down. After that, installing does nothing and a new hook runs at once.
///
/// ```swift
/// static func register(with registrar: PluginRegistrar) throws {
///     let plugin = CounterPlugin()
///     registrar.addMethodCallDelegate(plugin, channel: MethodChannel(name: "example/counter",
///                                                                    messenger: registrar.messenger))
///     registrar.addStreamHandler(plugin.ticks, channel: EventChannel(name: "example/counter/ticks",
///                                                                    messenger: registrar.messenger))
///     registrar.addTeardownHook { await plugin.flush() }
///     registrar.publish(plugin)   // other code can find it with valuePublished(byPlugin:)
/// }
/// ```
public final class PluginRegistrar: Sendable {
    /// The key this registrar was made for.
    public let key: String
    /// The messenger of the registry: one session, one engine in Flutter's terms.
    public let messenger: any BinaryMessenger
    /// The values the host gave the registry.
    public let environment: PluginEnvironment
    /// The registry's channel catalog, which reflection lists.
    public let channels: ChannelCatalog
    private let core: RegistryCore

    init(
        key: String, messenger: any BinaryMessenger, environment: PluginEnvironment, channels: ChannelCatalog,
        core: RegistryCore
    ) {
        self.key = key
        self.messenger = messenger
        self.environment = environment
        self.channels = channels
        self.core = core
    }

    /// Says what a channel of this plugin is, for reflection: its methods and a one-line
    /// description. Channels set up with `addMethodCallDelegate` or `addStreamHandler` are listed
    /// without it (with a `MethodRouter`'s methods); this adds what they cannot know.
    public func describe(_ channel: ChannelDescription) {
        catalogue(channel.name, previous: channels.add(channel))
    }

    /// Publishes a value under this plugin's key, replacing any earlier one; the registry's
    /// `valuePublished(byPlugin:)` returns it.
    public func publish(_ value: any Sendable) {
        core.publish(value, for: key)
    }

    /// Routes the method calls arriving on `channel` to `delegate`, with Flutter's semantics: its
    /// result is the success reply, a thrown `MethodError` the error reply, a thrown
    /// `MethodNotImplemented` a null reply ("not implemented" for the caller). Replaces any handler
    /// `channel` had; removed at teardown.
    public func addMethodCallDelegate(_ delegate: some MethodCallDelegate, channel: MethodChannel) {
        let methods = (delegate as? MethodRouter)?.methods.map { MethodDescription(name: $0) }
        catalogue(
            channel.name,
            previous: channels.addSetUp(
                ChannelDescription(
                    name: channel.name, kind: .method, codec: ChannelDescription.codecName(channel.codec),
                    methods: methods)))
        core.install(for: key) {
            if let immediate = delegate as? any ImmediateMethodCallDelegate {
                Self.install(immediate, on: channel)
            } else {
                channel.setMethodCallHandler { call in try await delegate.handle(call) }
            }
            return { channel.setMethodCallHandler(nil) }
        }
    }

    /// Installs `delegate`'s immediate answers on `channel`. Generic, so that the handlers call the
    /// delegate's type directly rather than through an existential box on every call.
    private static func install(_ delegate: some ImmediateMethodCallDelegate, on channel: MethodChannel) {
        channel.setImmediateMethodCallHandler(
            { call in try delegate.answerImmediately(call) },
            encoded: { method, arguments in try delegate.answerImmediately(method, encodedArguments: arguments) })
    }

    /// Makes `handler` the owner of the event channel `channel`; removed at teardown, which ends
    /// the active stream and calls the handler's `onCancel`.
    public func addStreamHandler(_ handler: some StreamHandler, channel: EventChannel) {
        catalogue(
            channel.name,
            previous: channels.addSetUp(
                ChannelDescription(
                    name: channel.name, kind: .event, codec: ChannelDescription.codecName(channel.codec))))
        core.install(for: key) {
            channel.setStreamHandler(handler)
            return { channel.setStreamHandler(nil) }
        }
    }

    /// Records a catalog entry this plugin added, so that a failed registration takes it back; a
    /// registrar whose plugin is no longer registered (its registration failed) takes it back at
    /// once, as its handlers are not installed either.
    private func catalogue(_ name: String, previous: ChannelDescription?) {
        if !core.catalogued(name, previous: previous, for: key) { channels.restore(name, to: previous) }
    }

    /// Runs `hook` once when the registry is torn down (after every channel handler is removed).
    public func addTeardownHook(_ hook: @escaping @Sendable () async -> Void) {
        core.addHook(hook, for: key)
    }
}
