import ChannelBridge
import Foundation

// test-plugin-check SOCKET [--async]
//
// Asks Pigeon's test plugin, served by a host, what its Dart integration tests ask of its
// threading and its timer-driven event streams, and checks each answer against what an iOS app
// gives: a handler without a task queue runs on the main thread, one with a background task queue
// off it (`--async`: also the async variant, which Pigeon 28 has), and each stream's timer
// delivers its events and ends. Prints one line per check and "N of M checks as expected"; exit
// status 0 when all are, 1 otherwise, 64 usage.

let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...2).contains(arguments.count), arguments.count == 1 || arguments[1] == "--async" else {
    FileHandle.standardError.write(Data("usage: test-plugin-check SOCKET [--async]\n".utf8))
    exit(64)
}
let socket = arguments[0]
let prefix = "dev.flutter.pigeon.pigeon_integration_tests."

/// The checks made so far: one line printed for each.
struct Tally {
    var passed = 0, total = 0

    mutating func check(_ label: String, _ got: String, _ expected: String) {
        total += 1
        if got == expected {
            passed += 1
            print("ok   \(label) -> \(got)")
        } else {
            print("DIFF \(label): expected \(expected), got \(got)")
        }
    }
}

/// A host method with no arguments, as Pigeon's Dart half calls it: the message `null`, the reply
/// `[result]`.
func call(_ method: String, on messenger: any BinaryMessenger) async -> String {
    let channel = BasicMessageChannel(
        name: prefix + "HostIntegrationCoreApi." + method, messenger: messenger, codec: StandardMessageCodec())
    do {
        return try await channel.send(nil).map(\.description) ?? "no reply"
    } catch {
        return "error: \(error)"
    }
}

/// Listens to an event channel of `EventChannelMethods` and collects its events until it ends.
func events(_ name: String, on messenger: any BinaryMessenger) async -> String {
    let channel = EventChannel(name: prefix + "EventChannelMethods." + name, messenger: messenger)
    var received: [String] = []
    do {
        for try await event in channel.receiveBroadcastStream() {
            switch event {
            case .success(let value):
                // Dart reads an int whichever width the codec chose.
                if case .int32(let number) = value {
                    received.append(String(number))
                } else if case .int64(let number) = value {
                    received.append(String(number))
                } else {
                    received.append(value.description)
                }
            case .error(let error): received.append("error \(error)")
            }
        }
        return received.joined(separator: ",") + ", end"
    } catch {
        return received.joined(separator: ",") + ", failed: \(error)"
    }
}

let connection = try await SocketConnection.connect(to: socket)
let messenger = connection.messenger
var tally = Tally()
tally.check("HostIntegrationCoreApi.defaultIsMainThread", await call("defaultIsMainThread", on: messenger), "[true]")
tally.check(
    "HostIntegrationCoreApi.taskQueueIsBackgroundThread", await call("taskQueueIsBackgroundThread", on: messenger),
    "[true]")
if arguments.count == 2 {
    tally.check(
        "HostIntegrationCoreApi.asyncTaskQueueIsBackgroundThread",
        await call("asyncTaskQueueIsBackgroundThread", on: messenger), "[true]")
}
tally.check("EventChannelMethods.streamInts", await events("streamInts", on: messenger), "0,1,2,3,4, end")
tally.check(
    "EventChannelMethods.streamConsistentNumbers.1", await events("streamConsistentNumbers.1", on: messenger),
    Array(repeating: "1", count: 10).joined(separator: ",") + ", end")
tally.check(
    "EventChannelMethods.streamConsistentNumbers.2", await events("streamConsistentNumbers.2", on: messenger),
    Array(repeating: "2", count: 10).joined(separator: ",") + ", end")
connection.close()
print("test-plugin-check: \(tally.passed) of \(tally.total) checks as expected")
exit(tally.passed == tally.total ? 0 : 1)
