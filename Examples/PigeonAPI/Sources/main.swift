// A Pigeon API (Pigeon 28.0.0's Swift output for pigeons/share_api.dart, adapted with
// `channelbridge pigeon adapt`) served over a Unix socket by a FlutterEngine per session, and
// driven by a client that builds the Dart side's bytes with ChannelBridge's own codec.
//
//   pigeon-api-example demo           serve, run the client against it, print what it gets
//   pigeon-api-example serve SOCKET   serve until SIGINT/SIGTERM; prints "ready SOCKET", then a
//                                     line per answer the Dart side gives to itemSaved
//
// The demo's socket lives in a private scratch directory (under $TMPDIR, else /tmp) that is
// removed at the end, with the listener's lock file: nothing is left behind.

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeSocket
import Flutter
import Foundation

/// Starts serving the ShareApi on `path`: each session gets its engine and its API object, and
/// reflection listing the API's channels (`channelbridge list --socket SOCKET`).
func serve(on path: String, report: @escaping @Sendable (String) -> Void) throws -> SocketListener {
    try SocketListener(path: path) { session in
        let engine = FlutterEngine(messenger: session.messenger)
        let api = ShareHostApiImplementation(flutterApi: ShareFlutterApi(binaryMessenger: engine), report: report)
        ShareHostApiSetup.setUp(binaryMessenger: engine, api: api)
        engine.serveReflection()
    }
}

/// A fresh directory only this user can enter (mkdtemp), for the demo's socket.
func makeScratchDirectory() -> String {
    var template = Array((NSTemporaryDirectory() + "cb-pigeon-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp: errno \(errno)") }
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

@Sendable func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Serves on `path` until SIGINT or SIGTERM.
func serveUntilSignalled(on path: String) async throws {
    // Process-wide policy: a closed pipe is an error on it; a handler that traps (Pigeon's code
    // force-casts what it reads) ends the process with a last line naming its channel.
    ProcessSignals.ignoreBrokenPipes()
    FatalSignalReport.install()
    let watcher = ProcessSignals.watch([ProcessSignals.interrupt, ProcessSignals.terminate])
    let listener = try serve(on: path) { line($0) }
    line("ready \(path)")
    for await _ in watcher.signals { break }
    listener.close()
    // Closing returns at once; the socket file is gone only when the accepting thread has ended.
    await listener.waitUntilClosed()
}

/// Serves on a scratch socket and calls every method as the Dart side would.
func demo() async throws {
    let directory = makeScratchDirectory()
    let path = directory + "/pigeon.sock"
    let reports = AsyncStream.makeStream(of: String.self)
    let listener = try serve(on: path) { reports.continuation.yield($0) }
    let connection = try await SocketConnection.connect(to: path)
    let messenger = connection.messenger

    // The Dart side answers the Flutter API.
    messenger.setMessageHandler(onChannel: DartSide.flutterApi + "itemSaved") { message in
        guard let message, case .list(let arguments) = try DartSide.codec.decode(message),
            let item = arguments.first?.custom?.as(DartSide.Item.self)
        else { return nil }
        return try DartSide.codec.encode([.string("saved \(item.title) with \(item.tags.count) tags")])
    }

    func show(_ method: String, _ reply: [StandardValue]?) {
        switch reply {
        case nil: line("\(method): channel-error (no handler answered)")
        case let list? where list.count == 1: line("\(method): \(list[0].customDescription)")
        case let list?: line("\(method): error \(list[0].stringValue ?? "?"): \(list[1].stringValue ?? "")")
        }
    }

    let item = DartSide.Item(
        title: "Holiday photos", note: nil, priority: DartSide.Priority(index: 2),
        attachment: DartSide.Attachment(path: "/tmp/beach.jpg", sizeInBytes: 52_311),
        tags: ["sea", "beach"])
    show("getHostLanguage", try await DartSide.call("getHostLanguage", nil, on: messenger))
    show("add", try await DartSide.call("add", [.int64(2), .int64(40)], on: messenger))
    show("add", try await DartSide.call("add", [.int64(Int64.max), .int64(1)], on: messenger))
    show("summarize", try await DartSide.call("summarize", [.custom(CustomValue(item))], on: messenger))
    var untitled = item
    untitled.title = ""
    show("save", try await DartSide.call("save", [.custom(CustomValue(untitled))], on: messenger))
    show("save", try await DartSide.call("save", [.custom(CustomValue(item))], on: messenger))
    for await report in reports.stream {
        line("host: " + report)
        break
    }
    show("clear", try await DartSide.call("clear", nil, on: messenger))
    show("rename", try await DartSide.call("rename", [.string("x")], on: messenger))
    connection.close()
    listener.close()
    await listener.waitUntilClosed()
    try? FileManager.default.removeItem(atPath: directory)
}

/// Runs `work` with the main run loop running on the main thread, where the engines' handlers
/// run as in an iOS app, and exits: 0 when it returns, 1 (with the error on stderr) when it throws.
func runOnMainRunLoop(_ work: @escaping @Sendable () async throws -> Void) -> Never {
    let status: Int32 = FlutterRunLoop.runMain {
        do {
            try await work()
            return 0
        } catch {
            FileHandle.standardError.write(Data("pigeon-api-example: \(error)\n".utf8))
            return 1
        }
    }
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve" where arguments.count == 2:
    runOnMainRunLoop { try await serveUntilSignalled(on: arguments[1]) }

case "demo" where arguments.count == 1:
    runOnMainRunLoop { try await demo() }

case "--help", "-h":
    line(
        """
        usage: pigeon-api-example demo | serve SOCKET

        Pigeon 28.0.0's Swift output for a share API, served by a FlutterEngine per session.
        demo: serves it on a socket in a scratch directory and calls every method as the Dart
        side would, printing each answer. serve SOCKET: serves it on SOCKET (prints `ready
        SOCKET`) until SIGINT or SIGTERM; `channelbridge list --socket SOCKET` lists its channels.
        """)

default:
    FileHandle.standardError.write(
        Data("usage: pigeon-api-example demo | serve SOCKET; run 'pigeon-api-example --help'\n".utf8))
    exit(64)
}

extension StandardValue {
    /// Dart-side values as the demo prints them.
    var customDescription: String {
        if let item = custom?.as(DartSide.Item.self) {
            let attachment =
                item.attachment.map { "\($0.path) (\($0.sizeInBytes.map(String.init) ?? "?") bytes)" } ?? "none"
            return "ShareItem(title: \(item.title), note: \(item.note ?? "nil"), priority: \(item.priority.index), "
                + "attachment: \(attachment), tags: \(item.tags))"
        }
        return TypedValueNotation.canonicalText(self)
    }
}
