import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// A change-stream listener that stops reading while values are written (extension-host.md §1.7):
/// the host keeps only the latest value per key for it, and once it reads it gets each key's
/// latest value.
@Suite struct ChangeStreamFlowControlTests {
    static let changes = "shared_preference_app_group/changes"

    /// Its writer and listener in one process: with isolation they are in two workers, whose
    /// streams find each other's writes by reading the file and read a key's value when it is
    /// taken (store.md, *Watching changes*), so a key's latest value may be reported twice.
    @Test(.disabled(if: HostProcess.isolationForced, "with isolation a key's latest value may be reported twice"))
    func aListenerThatStopsReadingGetsTheLatestValueOfEveryKeyOnceItReads() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            // Small water marks, so that a few hundred KiB of changes are enough to be behind.
            let host = try await HostTesting.start(
                directory, ["--app-group", "group.app", "--outbound-high-water", "65536"])
            let listener = try RawClient(path: directory.socket)
            try listener.write(
                RawClient.hello()
                    + RawClient.methodCall(
                        id: 1, channel: Self.changes, method: "listen",
                        arguments: HostTesting.map(["appGroup": "group.app"])))
            // The listen reply means the stream is subscribed; from here on the listener reads nothing.
            let (first, leftover) = await Self.readFrames(2, from: listener.fd)
            #expect(first.count == 2 && first.last == .reply(id: 1, status: 0, payload: [0, 0]))

            let writer = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(writer, HostTesting.prefsChannel)
            // 5 MiB of changes: far more than the host's socket send buffer (512 KiB asked, which
            // the kernel doubles) and its high-water mark can hold, however fast the host sends.
            let writes = 160, keys = 4, size = 32 << 10
            for index in 0..<writes {
                var value = [UInt8](repeating: 0, count: size)
                value[0] = UInt8(index)
                _ = try await prefs.invokeMethod(
                    "setBytes",
                    arguments: HostTesting.map([
                        "key": .string("k\(index % keys)"), "value": .uint8List(value),
                    ]))
            }
            // Now the listener reads, until it has seen the last value written to every key (the
            // store reports a write to its watchers a moment after acknowledging it).
            let expected = ["k0": 156, "k1": 157, "k2": 158, "k3": 159]
            let (frames, _) = await Self.readFrames(from: listener.fd, leftover: leftover) { frames in
                var latest: [String: Int] = [:]
                for case .other(0x04, let body) in frames {
                    if let change = try? Self.change(body) { latest[change.key] = change.number }
                }
                return latest == expected
            }
            listener.closeSocket()
            var latest: [String: Int] = [:]
            var received = 0
            for case .other(0x04, let body) in frames {
                guard let change = try Self.change(body) else { continue }
                #expect(change.number > latest[change.key] ?? -1, "a key's changes arrive in order")
                latest[change.key] = change.number
                received += 1
            }
            #expect(latest == expected)
            #expect(received < writes, "changes made while the listener was behind were coalesced per key")
            _ = try await HostTesting.methods(writer).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    /// The key and the first byte of the value of a change event's MESSAGE body.
    static func change(_ body: [UInt8]) throws -> (key: String, number: Int)? {
        let nameLength = Int(body[0]) | Int(body[1]) << 8
        guard body.count > 3 + nameLength, body[2 + nameLength] == 0 else { return nil }
        let payload = Array(body[(3 + nameLength)...])
        guard case .success(let value) = try StandardMethodCodec().decodeEnvelope(payload),
            let key = value["key"]?.stringValue, let bytes = value["value"]?.bytesValue
        else { return nil }
        return (key, Int(bytes[0]))
    }

    /// Reads until `count` frames are complete; returns them and the bytes read beyond them.
    static func readFrames(_ count: Int, from fd: Int32) async -> (frames: [RawClient.Frame], leftover: [UInt8]) {
        await readFrames(from: fd, leftover: []) { $0.count >= count }
    }

    /// Reads, after `leftover`, until the complete frames so far satisfy `done` (or the socket
    /// ends); returns those frames and the bytes read beyond them.
    static func readFrames(
        from fd: Int32, leftover: [UInt8], until done: @escaping @Sendable ([RawClient.Frame]) -> Bool
    )
        async -> (frames: [RawClient.Frame], leftover: [UInt8])
    {
        await withCheckedContinuation { continuation in
            Thread {
                var buffer = leftover
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    var offset = 0
                    while buffer.count - offset >= 4 {
                        let length =
                            Int(buffer[offset]) | Int(buffer[offset + 1]) << 8
                            | Int(buffer[offset + 2]) << 16 | Int(buffer[offset + 3]) << 24
                        guard buffer.count - offset - 4 >= length else { break }
                        offset += 4 + length
                    }
                    let frames = RawClient.parse(Array(buffer[..<offset]))
                    if done(frames) {
                        continuation.resume(returning: (frames, Array(buffer[offset...])))
                        return
                    }
                    let read = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if read < 0, errno == EINTR { continue }
                    guard read > 0 else {
                        continuation.resume(returning: (frames, []))
                        return
                    }
                    buffer += chunk[..<read]
                }
            }.start()
        }
    }
}
