import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Testing

/// The host's preferences as clients in other processes see them: program order on one
/// connection, cached reads that still see other processes' writes, and list appends and takes
/// across processes.
@Suite struct StoreOverSocketTests {
    static let prefs = HostTesting.prefsChannel

    /// Dart sends `setString` and then `getString` without awaiting the set: 20 rounds of set→get
    /// and 20 of set→remove→get, all in one `write`, each get answered with what the calls before
    /// it left and nothing after.
    @Test func pipelinedSetThenGetAndRemoveThenGetTakeEffectInTheOrderSent() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let client = try RawClient(path: directory.socket)
            defer { client.closeSocket() }
            var bytes = RawClient.hello()
            var id: UInt32 = 0
            var expected: [UInt32: StandardValue] = [:]
            func call(_ method: String, _ arguments: StandardValue, expect value: StandardValue = .null) throws {
                id += 1
                bytes += try RawClient.methodCall(id: id, channel: Self.prefs, method: method, arguments: arguments)
                expected[id] = value
            }
            for round in 0..<20 {
                let value = StandardValue.string("value \(round)")
                try call("setString", ["key": "k", "value": value])
                try call("getString", ["key": "k"], expect: value)
            }
            for round in 0..<20 {
                try call("setString", ["key": "r", "value": .string("doomed \(round)")])
                try call("remove", ["key": "r"])
                try call("getString", ["key": "r"], expect: .null)
            }
            try client.write(bytes + RawClient.goodbye())
            let frames = await client.readUntilClosed()
            let codec = StandardMethodCodec()
            var answered: [UInt32: StandardValue] = [:]
            var otherFrames: [String] = []
            for frame in frames {
                guard case .reply(let replyID, 0, let payload) = frame else {
                    if case .hello = frame {} else { otherFrames.append(frame.description) }
                    continue
                }
                switch try codec.decodeEnvelope(payload) {
                case .success(let value): answered[replyID] = value
                case .error(let error): otherFrames.append("REPLY \(replyID): \(error)")
                }
            }
            // Anything but a success names itself (a failure here once left only a missing id).
            #expect(answered == expected, "other frames: \(otherFrames)")
            host.send(signal: SIGTERM)
            _ = await host.waitForExit()
        }
    }

    /// The host answers reads from its cached document; a write another process acknowledged is
    /// seen by the next read anyway (same-size values, so only the file's identity tells them apart).
    @Test func aCachedReadSeesAWriteAnotherProcessAcknowledged() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let prefs = SharedPreferencesClient(messenger: connection.messenger)
            try await prefs.setString("k", "host 0")
            for round in 1...10 {
                #expect(try await prefs.getString("k") == "host \(round - 1)")  // cached from here on
                let peer = try StorePeer(
                    "set", dataDirectory: directory.data, group: "group.local",
                    ["--key", "k", "--value", "\"peer \(round)\""])
                try await peer.waitForSuccess()  // acknowledged: the peer printed "acked k" and exited
                #expect(try await prefs.getString("k") == "peer \(round)", "round \(round)")
                try await prefs.setString("k", "host \(round)")
            }
            connection.close()
            host.send(signal: SIGTERM)
            _ = await host.waitForExit()
        }
    }

    /// Seed 002 from the UI side: two processes append 30 items each through the channel (one
    /// through each of two hosts on the same data directory) while a third takes the list every
    /// 50 ms through the first host. Every item is taken exactly once, and each appender's items
    /// in its order.
    @Test func twoAppendingProcessesAndATakerEvery50msTakeEveryItemExactlyOnce() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let first = try await HostTesting.start(directory)
            let secondSocket = directory.path + "/h2.sock"
            let second = try HostProcess(["--socket", secondSocket, "--data-dir", directory.data])
            #expect(try await second.readyLine() == "ready \(secondSocket)")
            func peer(_ command: String, _ socket: String, _ arguments: [String]) throws -> StorePeer {
                try StorePeer(
                    command, dataDirectory: directory.data, group: "group.local",
                    ["--socket", socket, "--key", "itemList", "--gate"] + arguments)
            }
            let appenders = [
                try peer("channel-append", directory.socket, ["--prefix", "a", "--count", "30"]),
                try peer("channel-append", secondSocket, ["--prefix", "b", "--count", "30"]),
            ]
            let taker = try peer("channel-take", directory.socket, ["--every-ms", "50", "--total", "60"])
            for process in appenders + [taker] { try await process.waitForLine("ready") }
            for process in appenders + [taker] { try process.openGate() }
            for process in appenders + [taker] { try await process.waitForSuccess() }

            let taken = taker.lines.all.compactMap { $0.hasPrefix("took ") ? String($0.dropFirst(5)) : nil }
            #expect(taken.count == 60, "an item was taken twice or lost")
            #expect(Set(taken) == Set(["a", "b"].flatMap { prefix in (0..<30).map { "\(prefix)\($0)" } }))
            for prefix in ["a", "b"] {
                #expect(taken.filter { $0.hasPrefix(prefix) } == (0..<30).map { "\(prefix)\($0)" })
            }
            for host in [first, second] {
                host.send(signal: SIGTERM)
                _ = await host.waitForExit()
            }
        }
    }

    @Test func appendToAKeyHoldingAStringIsWrongTypeOverTheSocket() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let prefs = SharedPreferencesClient(messenger: connection.messenger)
            try await prefs.setString("itemList", "not a list")
            let error = try await #require(throws: MethodError.self) { try await prefs.appendToList("itemList", ["x"]) }
            #expect(error.code == "WRONG_TYPE")
            #expect(error.message == "appendToList: the value of key 'itemList' is String, not List")
            #expect(error.details == ["key": "itemList", "storedType": "String", "wantedType": "List"])
            #expect(try await prefs.getString("itemList") == "not a list")
            connection.close()
            host.send(signal: SIGTERM)
            _ = await host.waitForExit()
        }
    }
}
