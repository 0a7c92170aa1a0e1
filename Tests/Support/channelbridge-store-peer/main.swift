// A second process for the store's multi-process tests: it uses an app group under a data
// directory the way another host, the CLI or a containing app would, and reports on stdout, one
// line at a time (flushed), every write the store has acknowledged.
//
//   channelbridge-store-peer COMMAND --data-dir D --group G [options]
//     write-keys --prefix P --count N [--start S]   set P<i> = int32(i); prints "acked P<i>" after each
//     increment --key K --count N                   N atomic updates K += 1 (int64); prints "done"
//     append --key K --prefix P --count N           N atomic appends of "P<i>" to the string list K;
//                                                   prints "acked P<i>" after each
//     set --key K --value TVN                        prints "acked K"
//     get --key K                                    prints the canonical TVN (null when missing)
//     take --key K                                   prints the taken value's canonical TVN
//     remove-all                                     prints "acked"
//     watch [--count N]                              prints "watching", then "change K TVN" per change
//   Through a host's shared_preference_app_group channel instead of the store (--data-dir and
//   --group are then not used; the host's default group):
//     channel-append --socket S --key K --prefix P --count N   N appendToList calls of "P<i>";
//                                                   prints "acked P<i>" after each
//     channel-take --socket S --key K --every-ms M --total N   take K every M ms until N list items
//                                                   were taken; prints "took X" per item
//   --gate: print "ready" and wait for a line on stdin before starting (to start peers together).
// Exit status: 0 done, 1 store error (message on stderr), 64 usage.
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// One unbuffered write(2) per line, so a line printed before a SIGKILL has reached the pipe.
func writeLine(_ line: String, to descriptor: Int32) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
        if count < 0 { if errno == EINTR { continue } else { exit(1) } }
        written += count
    }
}

func emit(_ line: String) { writeLine(line, to: 1) }

func usage(_ message: String) -> Never {
    writeLine("channelbridge-store-peer: \(message)", to: 2)
    exit(64)
}

struct Options {
    var command = ""
    var values: [String: String] = [:]
    var gate = false

    init(_ arguments: [String]) {
        guard let first = arguments.first else { usage("missing command") }
        command = first
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--gate" {
                gate = true
                index += 1
                continue
            }
            guard argument.hasPrefix("--"), index + 1 < arguments.count else { usage("bad argument '\(argument)'") }
            values[String(argument.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String) -> String {
        guard let value = values[name] else { usage("missing --\(name)") }
        return value
    }

    func int(_ name: String, default fallback: Int? = nil) -> Int {
        guard let text = values[name] else {
            if let fallback { return fallback }
            usage("missing --\(name)")
        }
        guard let value = Int(text) else { usage("--\(name) is not an integer") }
        return value
    }
}

/// Waits for one line on stdin off the cooperative pool.
func waitForGate() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            _ = readLine()
            continuation.resume()
        }
    }
}

/// The channel commands: the same atomic operations through a host.
func runOnChannel(_ options: Options) async throws {
    let host = try await ExtensionHostClient.connect(
        to: options.string("socket"),
        options: SocketConnection.Options(connectTimeout: .seconds(HangGuardScale.scaled(5))))
    let prefs = SharedPreferencesClient(messenger: host.messenger)
    if options.gate {
        emit("ready")
        await waitForGate()
    }
    let key = options.string("key")
    switch options.command {
    case "channel-append":
        let prefix = options.string("prefix")
        for index in 0..<options.int("count") {
            try await prefs.appendToList(key, [.string("\(prefix)\(index)")])
            emit("acked \(prefix)\(index)")
        }
    case "channel-take":
        // The importer of the seeds: takes the whole list at a fixed period (its subject is time).
        let total = options.int("total")
        var taken = 0
        while taken < total {
            if case .list(let items) = try await prefs.take(key) {
                for item in items { emit("took \(item.stringValue ?? TypedValueNotation.canonicalText(item))") }
                taken += items.count
            }
            try await Task.sleep(for: .milliseconds(options.int("every-ms")))
        }
    default:
        usage("unknown command '\(options.command)'")
    }
    host.close()
}

func run(_ options: Options) async throws {
    if options.command.hasPrefix("channel-") { return try await runOnChannel(options) }
    let store = AppGroupStore(dataDirectory: options.string("data-dir"))
    let prefs = try store.group(options.string("group"))
    if options.gate {
        emit("ready")
        await waitForGate()
    }
    switch options.command {
    case "write-keys":
        let prefix = options.string("prefix")
        let start = options.int("start", default: 0)
        for index in start..<(start + options.int("count")) {
            try await prefs.set(.int32(Int32(index)), forKey: "\(prefix)\(index)")
            emit("acked \(prefix)\(index)")
        }
    case "increment":
        for _ in 0..<options.int("count") {
            try await prefs.update(key: options.string("key")) { old in
                switch old {
                case nil: return .int64(1)
                case .int64(let count)?: return .int64(count + 1)
                case let other?: throw StoreError(.invalidValue, "counter holds \(other)")
                }
            }
        }
        emit("done")
    case "append":
        let prefix = options.string("prefix")
        for index in 0..<options.int("count") {
            let item = "\(prefix)\(index)"
            try await prefs.update(key: options.string("key")) { old in
                switch old {
                case nil: return .list([.string(item)])
                case .list(let items)?: return .list(items + [.string(item)])
                case let other?: throw StoreError(.invalidValue, "item list holds \(other)")
                }
            }
            emit("acked \(item)")
        }
    case "set":
        let value = try TypedValueNotation.parse(options.string("value"))
        try await prefs.set(value, forKey: options.string("key"))
        emit("acked \(options.string("key"))")
    case "get":
        let value = try await prefs.value(forKey: options.string("key"))
        emit(value.map(TypedValueNotation.canonicalText) ?? "null")
    case "take":
        let value = try await prefs.take(key: options.string("key"))
        emit(value.map(TypedValueNotation.canonicalText) ?? "null")
    case "remove-all":
        try await prefs.removeAll()
        emit("acked")
    case "watch":
        let limit = options.int("count", default: Int.max)
        let changes = try await prefs.changes()
        emit("watching")
        var seen = 0
        for await change in changes {
            emit("change \(change.key) \(change.value.map(TypedValueNotation.canonicalText) ?? "null")")
            seen += 1
            if seen >= limit { break }
        }
    default:
        usage("unknown command '\(options.command)'")
    }
}

do {
    try await run(Options(Array(CommandLine.arguments.dropFirst())))
} catch {
    writeLine("channelbridge-store-peer: \(error)", to: 2)
    exit(1)
}
