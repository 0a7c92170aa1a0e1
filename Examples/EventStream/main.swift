// An event stream over a real Unix socket: one side owns an EventChannel and streams a countdown,
// the other listens and prints each event until the end of the stream.
//
//   event-stream-example [COUNT]
//
// The socket lives in a private scratch directory (under $TMPDIR, else /tmp) that is removed at
// the end, with the listener's lock file: nothing is left behind.

import ChannelBridge
import Foundation

/// The owner's side: on `listen`, send COUNT events, then end the stream.
struct Countdown: StreamHandler {
    func onListen(arguments: StandardValue, events: EventSink) async throws {
        let from = arguments["from"]?.intValue ?? 3
        Task {
            for value in stride(from: from, through: 1, by: -1) {
                events.success(.int(value))
            }
            events.success("liftoff")
            events.endOfStream()
        }
    }

    func onCancel(arguments: StandardValue) async throws {}
}

/// A fresh directory only this user can enter (mkdtemp), for the socket.
func makeScratchDirectory() -> String {
    var template = Array((NSTemporaryDirectory() + "cb-events-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp: errno \(errno)") }
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

func run(count: Int, socket path: String) async throws {
    // The owner: every session that connects gets the countdown channel, and reflection
    // (channelbridge/reflection) listing it, for `channelbridge list`.
    let listener = try SocketListener(path: path) { session in
        EventChannel(name: "example/countdown", messenger: session.messenger).setStreamHandler(Countdown())
        let channels = ChannelCatalog()
        channels.add(
            ChannelDescription(
                name: "example/countdown", kind: .event, codec: "standard",
                summary: #"listen {"from"?: int}; events from, …, 1, then "liftoff""#))
        channels.serveReflection(on: session.messenger)
    }

    // The listener side, in the same process over the socket (any process could connect instead).
    let connection = try await SocketConnection.connect(to: path)
    // What the session serves, read as `channelbridge list` reads it.
    let reflection = MethodChannel(name: ChannelCatalog.reflectionChannel, messenger: connection.messenger)
    if case .list(let listed) = try await reflection.invokeMethod("listChannels") {
        for channel in listed.compactMap(ChannelDescription.init) {
            print(
                "listed: \(channel.name) (\(channel.kind.rawValue) channel)" + (channel.summary.map { ": " + $0 } ?? "")
            )
        }
    }
    let events = EventChannel(name: "example/countdown", messenger: connection.messenger)
    for try await event in events.receiveBroadcastStream(arguments: ["from": .int(count)]) {
        print(TypedValueNotation.canonicalText(try event.get()))
    }
    print("end of stream")
    connection.close()
    listener.close()
    // Closing returns at once; the socket file is gone only when the accepting thread has ended.
    await listener.waitUntilClosed()
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--help" || arguments.first == "-h" {
    print(
        """
        usage: event-stream-example [COUNT]

        Serves an EventChannel on a socket in a scratch directory, lists the session's channels
        (reflection), and listens to it: a countdown from COUNT (default 3), then "liftoff", then
        the end of the stream.
        """)
    exit(0)
}
if let argument = arguments.first, Int(argument) == nil {
    FileHandle.standardError.write(
        Data(
            "event-stream-example: COUNT must be a whole number, not '\(argument)'; run 'event-stream-example --help'\n"
                .utf8))
    exit(64)
}
let count = arguments.first.flatMap { Int($0) } ?? 3
let directory = makeScratchDirectory()
var status: Int32 = 0
do {
    try await run(count: count, socket: directory + "/events.sock")
} catch {
    FileHandle.standardError.write(Data("event-stream-example: \(error)\n".utf8))
    status = 1
}
try? FileManager.default.removeItem(atPath: directory)
exit(status)
