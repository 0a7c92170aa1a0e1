// An event stream over a real Unix socket: one side owns an EventChannel and streams a countdown,
// the other listens and prints each event until the end of the stream.
//
//   event-stream-example [COUNT]

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
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

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 3
let path = "/tmp/cb-events-\(getpid()).sock"

// The owner: every session that connects gets the countdown channel.
let listener = try SocketListener(path: path) { session in
    EventChannel(name: "example/countdown", messenger: session.messenger).setStreamHandler(Countdown())
}

// The listener side, in the same process over the socket (any process could connect instead).
let connection = try await SocketConnection.connect(to: path)
let events = EventChannel(name: "example/countdown", messenger: connection.messenger)
for try await event in events.receiveBroadcastStream(arguments: ["from": .int(count)]) {
    print(TypedValueNotation.canonicalText(try event.get()))
}
print("end of stream")
connection.close()
listener.close()
