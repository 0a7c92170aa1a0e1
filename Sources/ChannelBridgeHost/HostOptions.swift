public import ChannelBridgeMessenger
public import ChannelBridgeSocket
public import ChannelBridgeStore

/// Everything `extension-host` can be told on its command line. Every option has a default, so
/// `HostOptions()` is a host that `extension-host` alone would run. Outside the package the
/// options are given once, to the initializer; the fields are the package's (the command line's
/// parser, the host's sessions).
///
/// ```swift
/// let options = HostOptions(inputs: [.text("hello"), .url("https://example.com")], shareKey: "ShareKey")
/// let host = try await ExtensionHost.start(options: options)
/// ```
public struct HostOptions: Sendable, Equatable {
    /// One input item source given on the command line, in order.
    public enum Input: Sendable, Equatable {
        case text(String)
        case url(String)
        case file(String)
    }

    /// The socket path to bind (`--socket`); the default is `SocketPath.defaultPath()`.
    package var socketPath: String
    /// The largest frame the host accepts (`--max-frame-bytes`); `nil` keeps the messenger's default.
    package var maxFrameBytes: Int?
    /// `--title` and `--content-text`: the attributed title and content text of the input item.
    package var title: String?
    package var contentText: String?
    /// The store's data directory (`--data-dir`).
    package var dataDirectory: String
    /// The app groups this extension is entitled to (`--app-group`, repeatable), in order; never empty.
    package var appGroups: [String]
    /// The extension's bundle identifier (`--bundle-identifier`): the name of the app's sandbox for
    /// Foundation code in a Flutter-style host and of its standard suite (`AppSandbox`).
    /// `Bundle.main.bundleIdentifier` comes from an `Info.plist` beside the executable instead;
    /// when there is one and the option is not given, its `CFBundleIdentifier` is taken.
    package var bundleIdentifier = HostOptions.defaultBundleIdentifier
    /// Whether `--bundle-identifier` was given.
    package var bundleIdentifierGiven = false
    /// The extension channel's name (`--channel`).
    package var channel: String
    /// `--text`, `--url` and `--file`, in the order given.
    package var inputs: [Input]
    /// `--items FILE.json`: input items described in a file (instead of `inputs`).
    package var itemsFile: String?
    /// `--share-key KEY`: write the shared items as JSON under this key before serving.
    package var shareKey: String?
    /// `--info-plist FILE`: validate the input items against its `NSExtensionActivationRule`.
    package var infoPlist: String?
    /// `--deadline SECONDS`: expire when neither `exit` nor `cancel` came this long after the ready line.
    package var deadline: Duration?
    /// `--open-url allow|deny`: what `openURL` answers.
    package var allowsOpenURL: Bool
    /// `--trace`: log every call, decoded, to standard error.
    package var trace: Bool
    /// `--echo`: also serve `channelbridge/echo` (binary, replies with the bytes it got).
    package var echo: Bool
    /// `--plugin NAME` (repeatable): register only these plugins; `nil` registers every built-in one.
    package var plugins: [String]?
    /// `--max-connections N`: sessions served at once; a further client gets GOODBYE `tooManyConnections`.
    package var maxConnections: Int
    /// `--max-handlers N`: handlers running at once per session; further requests wait unread.
    package var maxHandlersInFlight: Int
    /// `--request-budget BYTES`: bytes of requests in flight across all sessions (`RequestBudget`);
    /// a request that does not fit waits unread until others are answered.
    package var requestBudget: Int
    /// `--outbound-high-water BYTES`: unsent bytes per session above which the host stops taking
    /// that session's requests (and its event streams wait or buffer).
    package var outboundHighWater: Int
    /// `--outbound-low-water BYTES`: unsent bytes at or below which it takes them again.
    package var outboundLowWater: Int
    /// `--hello-timeout SECONDS`: a client that has not sent HELLO this long after connecting is
    /// closed with GOODBYE; `nil` (`--hello-timeout 0`) waits for ever.
    package var helloTimeout: Duration?
    /// `--frame-timeout SECONDS`: a client that has begun a frame and leaves this side waiting
    /// longer than this for the rest (plus a second per MiB of it received) gets GOODBYE
    /// `frameTimeout` and is closed (wire protocol §4.10, rule 9); `nil` (`--frame-timeout 0`)
    /// waits for ever.
    package var frameTimeout: Duration?
    /// `--shutdown-timeout SECONDS`: how long the shutdown waits, from the end of the request, for
    /// the replies still owed (a store write that cannot finish holds one back for as long as it
    /// is stuck); once it has passed, `run()` returns without them (`CompletionRecord.shutdownDeadlinePassed`).
    /// `.zero` waits for nothing.
    package var shutdownTimeout: Duration
    /// `--isolation session|none`: whether each session runs in a worker process of its own
    /// (Protocol/extension-host.md §1.8). `nil` (not given): `session` for a host executable with
    /// plugins of its own, `none` otherwise (`ExtensionHostCommand.main` decides).
    package var isolation: HostIsolation?

    @usableFromInline package static let defaultAppGroup = "group.local"
    /// `--bundle-identifier`'s default.
    package static let defaultBundleIdentifier = "local.extension"
    @usableFromInline package static let defaultChannel = "channelbridge/extension"
    package static let echoChannel = "channelbridge/echo"
    @usableFromInline package static let defaultShutdownTimeout: Duration = .seconds(5)

    /// Options with these values, each defaulting to what `extension-host` takes without its option.
    public init(
        socketPath: String = SocketPath.defaultPath(),
        maxFrameBytes: Int? = nil,
        title: String? = nil,
        contentText: String? = nil,
        dataDirectory: String = AppGroupStore.defaultDataDirectory(),
        appGroups: [String] = [HostOptions.defaultAppGroup],
        channel: String = HostOptions.defaultChannel,
        inputs: [Input] = [],
        itemsFile: String? = nil,
        shareKey: String? = nil,
        infoPlist: String? = nil,
        deadline: Duration? = nil,
        allowsOpenURL: Bool = false,
        trace: Bool = false,
        echo: Bool = false,
        plugins: [String]? = nil,
        maxConnections: Int = SocketListener.Options.defaultMaxConnections,
        maxHandlersInFlight: Int = MessengerConnection.Options.defaultMaxHandlersInFlight,
        requestBudget: Int = RequestBudget.defaultCapacity,
        outboundHighWater: Int = SocketConnection.Options.defaultOutboundHighWater,
        outboundLowWater: Int = SocketConnection.Options.defaultOutboundLowWater,
        helloTimeout: Duration? = SocketConnection.Options.defaultHelloTimeout,
        frameTimeout: Duration? = SocketConnection.Options.defaultFrameTimeout,
        shutdownTimeout: Duration = HostOptions.defaultShutdownTimeout
    ) {
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
        self.title = title
        self.contentText = contentText
        self.dataDirectory = dataDirectory
        self.appGroups = appGroups
        self.channel = channel
        self.inputs = inputs
        self.itemsFile = itemsFile
        self.shareKey = shareKey
        self.infoPlist = infoPlist
        self.deadline = deadline
        self.allowsOpenURL = allowsOpenURL
        self.trace = trace
        self.echo = echo
        self.plugins = plugins
        self.maxConnections = maxConnections
        self.maxHandlersInFlight = maxHandlersInFlight
        self.requestBudget = requestBudget
        self.outboundHighWater = outboundHighWater
        self.outboundLowWater = outboundLowWater
        self.helloTimeout = helloTimeout
        self.frameTimeout = frameTimeout
        self.shutdownTimeout = shutdownTimeout
    }

    /// The group that `--share-key` writes into and `--file` copies go to: the first entitled one.
    package var primaryAppGroup: String { appGroups.first ?? Self.defaultAppGroup }
}
