import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeStore

extension HostOptions {
    /// What a command line asks for.
    package enum Command: Sendable, Equatable {
        /// Run a host with these options.
        case run(HostOptions)
        /// Print the usage text (`--help`) and exit 0.
        case help
    }

    /// Reads the command line (without the program name). Options take their value as the next
    /// argument or after `=` (`--socket=/tmp/h.sock`).
    ///
    /// - Throws: `HostError` with code `usage` naming the offending argument.
    package static func parse(_ arguments: [String]) throws(HostError) -> Command {
        var options = HostOptions()
        var appGroups: [String] = []
        var plugins: [String] = []
        var lowWaterGiven = false
        var reader = CommandLineReader(arguments)

        func usage(_ message: String) -> HostError {
            HostError(.usage, "extension-host: \(message)\nRun 'extension-host --help' for the options.")
        }

        while let item = reader.next() {
            // The host takes options only; any other argument that starts with a dash is an
            // option it does not know (`-h` aside), named as given.
            let name: String
            let inlineValue: String?
            switch item {
            case .option(let given, let inline):
                (name, inlineValue) = ("--" + given, inline)
            case .operand(let argument) where argument.hasPrefix("-") && argument != "-":
                (name, inlineValue) = (argument, nil)
            case .operand(let argument):
                throw usage("unexpected argument \(argument.debugDescription): the host takes options only")
            }

            func value() throws(HostError) -> String {
                guard let value = reader.value(inlineValue) else { throw usage("\(name) needs a value") }
                return value
            }

            func nonEmpty() throws(HostError) -> String {
                let text = try value()
                guard !text.isEmpty else { throw usage("\(name) needs a non-empty value") }
                return text
            }

            switch name {
            case "--help", "-h":
                return .help
            case "--trace", "--echo":
                guard inlineValue == nil else { throw usage("\(name) takes no value") }
                if name == "--trace" { options.trace = true } else { options.echo = true }
            case "--socket":
                options.socketPath = try nonEmpty()
            case "--max-frame-bytes":
                let text = try value()
                guard let bytes = Int(text), bytes >= 16, bytes <= Int(UInt32.max) else {
                    throw usage(
                        "--max-frame-bytes needs a whole number from 16 to \(UInt32.max), not \(text.debugDescription)")
                }
                options.maxFrameBytes = bytes
            case "--title":
                options.title = try value()
            case "--content-text":
                options.contentText = try value()
            case "--data-dir":
                options.dataDirectory = try nonEmpty()
            case "--app-group":
                let group = try value()
                do {
                    try AppGroupStore.validate(groupName: group)
                } catch {
                    throw usage("--app-group: \(error.message)")
                }
                // Two spellings of one name in Unicode are two groups (two directories).
                if !appGroups.contains(where: { CodeUnitString.equal($0, group) }) { appGroups.append(group) }
            case "--bundle-identifier":
                options.bundleIdentifier = try value()
                options.bundleIdentifierGiven = true
                do {
                    try AppGroupStore.validate(directoryName: options.bundleIdentifier, what: "bundle identifier")
                } catch {
                    throw usage("--bundle-identifier: \(error.message)")
                }
            case "--channel":
                options.channel = try nonEmpty()
                guard options.channel.utf8.count <= Int(UInt16.max) else {
                    throw usage("--channel: a channel name has at most 65,535 bytes")
                }
            case "--text":
                options.inputs.append(.text(try value()))
            case "--url":
                options.inputs.append(.url(try nonEmpty()))
            case "--file":
                options.inputs.append(.file(try nonEmpty()))
            case "--items":
                guard options.itemsFile == nil else { throw usage("--items may be given once") }
                options.itemsFile = try nonEmpty()
            case "--share-key":
                options.shareKey = try nonEmpty()
            case "--info-plist":
                options.infoPlist = try nonEmpty()
            case "--deadline":
                let text = try value()
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 31_536_000 else {
                    throw usage(
                        "--deadline needs a number of seconds above 0 (at most a year), not \(text.debugDescription)")
                }
                options.deadline = .milliseconds(Int64((seconds * 1000).rounded(.up)))
            case "--open-url":
                let text = try value()
                switch text {
                case "allow": options.allowsOpenURL = true
                case "deny": options.allowsOpenURL = false
                default: throw usage("--open-url takes allow or deny, not \(text.debugDescription)")
                }
            case "--max-connections", "--max-handlers":
                let text = try value()
                guard let count = Int(text), count >= 1, count <= 1_000_000 else {
                    throw usage("\(name) needs a whole number from 1 to 1000000, not \(text.debugDescription)")
                }
                if name == "--max-connections" {
                    options.maxConnections = count
                } else {
                    options.maxHandlersInFlight = count
                }
            case "--request-budget":
                let text = try value()
                guard let bytes = Int(text), bytes >= 1, bytes <= 1 << 40 else {
                    throw usage(
                        "--request-budget needs a number of bytes from 1 to \(1 << 40), not \(text.debugDescription)")
                }
                options.requestBudget = bytes
            case "--outbound-high-water", "--outbound-low-water":
                let text = try value()
                guard let bytes = Int(text), bytes >= 0, bytes <= Int(UInt32.max) else {
                    throw usage("\(name) needs a number of bytes from 0 to \(UInt32.max), not \(text.debugDescription)")
                }
                if name == "--outbound-high-water" {
                    guard bytes >= 1 else { throw usage("--outbound-high-water needs at least 1 byte") }
                    options.outboundHighWater = bytes
                } else {
                    options.outboundLowWater = bytes
                    lowWaterGiven = true
                }
            case "--hello-timeout", "--frame-timeout":
                let text = try value()
                guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 3600 else {
                    throw usage(
                        "\(name) needs a number of seconds from 0 to 3600 (0: wait for ever), not \(text.debugDescription)"
                    )
                }
                let timeout: Duration? = seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded(.up)))
                if name == "--hello-timeout" { options.helloTimeout = timeout } else { options.frameTimeout = timeout }
            case "--shutdown-timeout":
                let text = try value()
                guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 3600 else {
                    throw usage(
                        "--shutdown-timeout needs a number of seconds from 0 to 3600, not \(text.debugDescription)")
                }
                options.shutdownTimeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
            case "--isolation":
                let text = try value()
                guard let isolation = HostIsolation(rawValue: text) else {
                    throw usage("--isolation needs session or none, not \(text.debugDescription)")
                }
                options.isolation = isolation
            case "--plugin":
                let plugin = try nonEmpty()
                if !plugins.contains(plugin) { plugins.append(plugin) }
            default:
                throw usage("unknown option \(name)")
            }
        }

        if !lowWaterGiven {
            // The low-water mark follows a high-water mark given alone: a quarter of it.
            options.outboundLowWater = min(options.outboundLowWater, options.outboundHighWater / 4)
        }
        if options.outboundLowWater > options.outboundHighWater {
            throw usage(
                "--outbound-low-water (\(options.outboundLowWater)) must not exceed --outbound-high-water (\(options.outboundHighWater))"
            )
        }
        if !appGroups.isEmpty { options.appGroups = appGroups }
        if !plugins.isEmpty { options.plugins = plugins }
        if options.itemsFile != nil {
            if !options.inputs.isEmpty {
                throw usage("--items cannot be combined with --text, --url or --file: describe every item in the file")
            }
            if options.title != nil || options.contentText != nil {
                throw usage("--items cannot be combined with --title or --content-text: put them in the file's items")
            }
        }
        if options.channel == HostOptions.echoChannel && options.echo {
            throw usage("--channel \(HostOptions.echoChannel) is the echo channel's name; choose another")
        }
        return .run(options)
    }

    /// The text `--help` prints.
    package static let usageText = """
        usage: extension-host [options]

        Serves an app extension's native side over a Unix socket: the extension channel, the
        built-in plugins and the app-group store. Prints `ready <socket-path>` when it accepts
        connections and, when the request ends, one JSON line (the completion record).
        'channelbridge list' prints the channels a session serves, with their methods; the
        channels' tables are in Protocol/extension-host.md §3 to §5.

        Exit status: 0 completed (exit), 2 cancelled, 3 expired (--deadline), 130 SIGINT,
        143 SIGTERM, 1 failed to start, 64 usage error. The status is the same when the shutdown
        runs past --shutdown-timeout; the record then says so (shutdownDeadlinePassed).

        options:
          --socket PATH            socket to bind, in an existing directory (default
                                   $XDG_RUNTIME_DIR/channelbridge/extension-host.sock, else
                                   /tmp/channelbridge-<uid>/extension-host.sock, whose directory is created)
          --max-frame-bytes N      largest frame accepted (default 64 MiB)
          --data-dir DIR           the store's data directory; a relative DIR is taken against the working
                                   directory, so the paths handed out (items, containers) are absolute
                                   (default $XDG_DATA_HOME/channelbridge, else ~/.local/share/channelbridge)
          --app-group ID           an app group this extension is entitled to; repeatable
                                   (default group.local); the first one gets --file copies and --share-key
          --bundle-identifier ID   the extension's bundle identifier: the name of a Flutter-style host's
                                   sandbox under DIR/apps/ and of its standard suite (default: the
                                   CFBundleIdentifier of an Info.plist beside the executable, which is
                                   Bundle.main's, else local.extension; Protocol/flutter-embedder.md §8)
          --channel NAME           the extension channel (default channelbridge/extension)
          --title S                the input item's title
          --content-text S         the input item's content text
          --text S                 a text attachment; repeatable, in order with --url and --file
          --url U                  a URL attachment, kept exactly as given; repeatable
          --file PATH              a file attachment, copied into the first group's container; repeatable
          --items FILE.json        input items described in a file (see Protocol/extension-host.md)
          --share-key KEY          write the shared items as JSON under KEY before serving
          --info-plist FILE        refuse to start unless its NSExtensionActivationRule allows the items
          --deadline SECONDS       expire (exit 3) when neither exit nor cancel came in time
          --open-url allow|deny    what openURL answers (default deny)
          --plugin NAME            register only these plugins; repeatable (default: every built-in one)
          --max-connections N      sessions served at once (default 128); a further client gets
                                   GOODBYE tooManyConnections
          --max-handlers N         handlers running at once per session (default 64); further
                                   requests wait unread
          --request-budget B       bytes of requests (of 4 KiB or more) in flight across all
                                   sessions (default 268435456); a further one waits unread until
                                   others are answered; one larger than B runs alone
          --outbound-high-water B  unsent bytes per session above which its requests wait unread and
                                   its event streams wait or buffer (default 4194304)
          --outbound-low-water B   unsent bytes at or below which that ends (default 1048576, or a
                                   quarter of --outbound-high-water)
          --hello-timeout SECONDS  close a client that has not sent HELLO in time (default 5; 0: never)
          --frame-timeout SECONDS  close a client that leaves a begun frame unfinished this long, plus
                                   1 s per MiB of it received, with GOODBYE frameTimeout (default 10;
                                   0: never)
          --shutdown-timeout SECONDS
                                   once the request has ended, wait at most this long (0 to 3600,
                                   default 5) for replies still owed, e.g. a store write stuck on
                                   the group's lock; then exit without them (nothing acknowledged
                                   is lost). A second SIGINT/SIGTERM exits at once
          --isolation session|none run each session in a worker process of its own, so that a
                                   plugin that traps ends only its session (default: session in a
                                   host with plugins of its own, none in extension-host). Workers
                                   run with SWIFT_BACKTRACE=enable=no (no backtrace of a crash; the
                                   host logs its signal, channel and method) unless SWIFT_BACKTRACE
                                   is set, which they then inherit
          --echo                   also serve channelbridge/echo (binary; replies with the bytes it got)
          --trace                  log every call, decoded, to standard error
          --help                   print this text
        """
}
