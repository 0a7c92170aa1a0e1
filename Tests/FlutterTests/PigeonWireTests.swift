import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing
import ChannelBridgeMessenger

/// Examples/PigeonAPI (Pigeon 28.0.0's Swift output, adapted) served over a real socket by its
/// own process, driven with the bytes Pigeon's Dart code sends. Every request and reply is
/// compared byte for byte with what Pigeon's generators write: arguments as a list, `[result]`
/// or `[code, message, details]`, ints as int64, the enum as type 129 and its index, classes as
/// 130/131 and their fields in order, `null` for a method without arguments.
@Suite struct PigeonWireTests {
    static let hostApi = "dev.flutter.pigeon.pigeon_api_example.ShareHostApi."
    static let itemSaved = "dev.flutter.pigeon.pigeon_api_example.ShareFlutterApi.itemSaved"

    /// "Holiday photos", no note, priority high, /tmp/beach.jpg of 52311 bytes, tags sea and beach.
    static let item =
        "83" + "0c05" + "070e" + hex("Holiday photos") + "00" + "81" + "04" + "0200000000000000"
        + "82" + "0c02" + "070e" + hex("/tmp/beach.jpg") + "04" + "57cc000000000000"
        + "0c02" + "0703" + hex("sea") + "0705" + hex("beach")

    static func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(_ hexText: String) -> [UInt8] {
        try! Hex.decode(hexText)
    }

    /// The example host, and a client session with it.
    struct Served {
        let directory: TestDirectory
        let host: HostProcess
        let connection: SocketConnection

        static func start() async throws -> Served {
            let directory = try TestDirectory()
            let host = try HostProcess(["serve", directory.socket], product: "pigeon-api-example")
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            return Served(
                directory: directory, host: host,
                connection: try await SocketConnection.connect(to: directory.socket, options: .forTests))
        }

        func call(_ method: String, _ request: String?) async throws -> String? {
            try await connection.messenger.send(
                onChannel: PigeonWireTests.hostApi + method,
                message: request.map(PigeonWireTests.bytes)
            ).map(Hex.encode)
        }

        func stop() async {
            connection.close()
            host.send(signal: SIGTERM)
            _ = await host.waitForExit()
            directory.remove()
        }
    }

    @Test func hostMethodsOfEveryKind() async throws {
        let served = try await Served.start()
        try await withHangGuard { () async throws in
            // sync, no arguments: the request is a null message
            #expect(try await served.call("getHostLanguage", nil) == "0c01" + "0705" + Self.hex("Swift"))
            // sync with arguments
            #expect(
                try await served.call("add", "0c02" + "04" + "0200000000000000" + "04" + "2800000000000000")
                    == "0c01" + "04" + "2a00000000000000")
            // sync, throwing: [code, message, details]
            #expect(
                try await served.call("add", "0c02" + "04" + "ffffffffffffff7f" + "04" + "0100000000000000")
                    == "0c03" + "0708" + Self.hex("OVERFLOW") + "072f"
                    + Self.hex("9223372036854775807 + 1 does not fit in 64 bits") + "00")
            // async (answered from the main actor), a class with a nested class, an enum, a null field and a list
            #expect(
                try await served.call("summarize", "0c01" + Self.item)
                    == "0c01" + "83" + "0c05" + "070e" + Self.hex("HOLIDAY PHOTOS") + "0706" + Self.hex("2 tags")
                    + "81" + "04" + "0200000000000000" + "82" + "0c02" + "070e" + Self.hex("/tmp/beach.jpg")
                    + "04" + "57cc000000000000" + "0c02" + "0705" + Self.hex("beach") + "0703" + Self.hex("sea"))
            // void: [null]
            #expect(try await served.call("clear", nil) == "0c01" + "00")
            // a PigeonError thrown by the API
            #expect(
                try await served.call(
                    "save",
                    "0c01" + Self.item.replacingOccurrences(of: "070e" + Self.hex("Holiday photos"), with: "0700"))
                    == "0c03" + "070b" + Self.hex("EMPTY_TITLE") + "0715" + Self.hex("an item needs a title") + "00")
            // no handler on the channel: a null reply, which Pigeon's Dart code reports as channel-error
            #expect(try await served.call("rename", "0c01" + "0701" + Self.hex("x")) == nil)
        }
        await served.stop()
    }

    @Test func theFlutterApiCalledFromTheHost() async throws {
        let served = try await Served.start()
        let requests = Inbox<String>()
        let answers = [
            "0c01" + "0706" + Self.hex("thanks"),  // a result
            "0c03" + "0704" + Self.hex("BUSY") + "0705" + Self.hex("later") + "00",  // an error
            "0c01" + "00",
        ]  // null for a non-null String
        let next = Box(0)
        served.connection.messenger.setMessageHandler(onChannel: Self.itemSaved) { message in
            requests.put(message.map(Hex.encode) ?? "null")
            let answer = answers[next.value]
            next.value += 1
            return Self.bytes(answer)
        }
        try await withHangGuard { () async throws in
            for (index, expected) in [
                "itemSaved answered: thanks", "itemSaved failed: BUSY: later",
                "itemSaved failed: null-error: Flutter api returned null value for non-null return value.",
            ].enumerated() {
                #expect(
                    try await served.call("save", "0c01" + Self.item) == "0c01" + "04"
                        + String(format: "%02x", index + 1) + "00000000000000")
                // The host's Swift writer sends the item in the same bytes as Dart's.
                #expect(await requests.next() == "0c01" + Self.item)
                #expect(await served.host.line(index + 1) == expected)
            }
            // With no handler on the Dart side the call gets a null reply: channel-error.
            served.connection.messenger.setMessageHandler(onChannel: Self.itemSaved, nil)
            #expect(try await served.call("save", "0c01" + Self.item) == "0c01" + "04" + "0400000000000000")
            #expect(
                await served.host.line(4)
                    == "itemSaved failed: channel-error: Unable to establish connection on channel: "
                    + "'\(Self.itemSaved)'.")
        }
        await served.stop()
    }
}
