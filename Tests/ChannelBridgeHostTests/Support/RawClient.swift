import ChannelBridgeTestSupport
import ChannelBridgeCodec
import Foundation
import Glibc

/// A client that writes and reads wire-protocol frames itself, over a plain socket, so a test can
/// put several frames in one `write` and see every frame the host sends, in order.
final class RawClient: Sendable {
    enum Frame: Equatable, CustomStringConvertible {
        case hello(role: UInt8)
        case reply(id: UInt32, status: UInt8, payload: [UInt8])
        case goodbye(code: UInt16, reason: String)
        case other(kind: UInt8, body: [UInt8])

        var description: String {
            switch self {
            case .hello(let role): "HELLO role \(role)"
            case .reply(let id, let status, let payload): "REPLY id \(id) status \(status) \(Hex.encode(payload))"
            case .goodbye(let code, let reason): "GOODBYE \(code) \(reason)"
            case .other(let kind, let body): "frame kind \(kind) \(Hex.encode(body))"
            }
        }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    let fd: Int32

    init(path: String) throws {
        // Close-on-exec, so that no child process another test starts holds this connection open.
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect \(path): errno \(code)")
        }
    }

    /// Writes all of `bytes` in as few `write` calls as the kernel allows (one, for small ones).
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "write: errno \(errno)")
            }
            offset += written
        }
    }

    /// Reads frames until the host closes the connection, on a thread of its own.
    func readUntilClosed() async -> [Frame] {
        Self.parse(await readBytesUntilClosed())
    }

    /// Reads every byte until the host closes the connection, on a thread of its own.
    func readBytesUntilClosed() async -> [UInt8] {
        await withCheckedContinuation { continuation in
            let fd = self.fd
            let thread = Thread {
                var buffer: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    buffer += chunk[0..<count]
                }
                continuation.resume(returning: buffer)
            }
            thread.start()
        }
    }

    /// Blocks until at least `queued` bytes wait unread in the socket and their count has not
    /// changed for `quietMilliseconds` (the sender has stopped: its side of the socket is full),
    /// then reads exactly `count` bytes. The count is sampled every 5 ms: nothing tells a reader
    /// that the sender has stopped. Call it on a thread of its own.
    func readOnceSenderStops(queued: Int, quietMilliseconds: Int, count: Int) throws -> [UInt8] {
        var last: Int32 = -1
        var unchangedSince = ContinuousClock.now
        while true {
            var waiting: Int32 = 0
            guard ioctl(fd, UInt(FIONREAD), &waiting) == 0 else {
                throw Failure(description: "FIONREAD: errno \(errno)")
            }
            let now = ContinuousClock.now
            if waiting != last {
                last = waiting
                unchangedSince = now
            } else if waiting >= queued && now - unchangedSince >= .milliseconds(quietMilliseconds) {
                break
            }
            usleep(5000)
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var have = 0
        while have < count {
            let read = bytes[have...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw Failure(description: "read: end after \(have) of \(count) bytes") }
            have += read
        }
        return bytes
    }

    func closeSocket() {
        close(fd)
    }

    // MARK: Frames

    static func hello(name: String = "raw test client") -> [UInt8] {
        var body: [UInt8] = Array("CHBR".utf8)
        body += le16(1) + le16(0) + [0] + le16(UInt16(name.utf8.count)) + Array(name.utf8)
        return frame(kind: 0x01, body: body)
    }

    static func request(id: UInt32, channel: String, payload: [UInt8]) -> [UInt8] {
        frame(kind: 0x02, body: le32(id) + le16(UInt16(channel.utf8.count)) + Array(channel.utf8) + [0] + payload)
    }

    static func methodCall(
        id: UInt32, channel: String, method: String, arguments: StandardValue = .null
    ) throws -> [UInt8] {
        request(
            id: id, channel: channel,
            payload: try StandardMethodCodec().encodeMethodCall(MethodCall(method, arguments: arguments)))
    }

    /// GOODBYE `normal`: the host answers what it owes, then closes.
    static func goodbye(reason: String = "done") -> [UInt8] {
        frame(kind: 0x08, body: le16(0) + Array(reason.utf8))
    }

    static func parse(_ bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var offset = 0
        while bytes.count - offset >= 5 {
            let length = Int(readLE32(bytes, offset))
            guard length >= 1, bytes.count - offset - 4 >= length else { break }
            let kind = bytes[offset + 4]
            let body = Array(bytes[(offset + 5)..<(offset + 4 + length)])
            offset += 4 + length
            switch kind {
            case 0x01 where body.count >= 9: frames.append(.hello(role: body[8]))
            case 0x03 where body.count >= 5:
                frames.append(.reply(id: readLE32(body, 0), status: body[4], payload: Array(body[5...])))
            case 0x08 where body.count >= 2:
                frames.append(
                    .goodbye(
                        code: UInt16(body[0]) | UInt16(body[1]) << 8,
                        reason: String(decoding: body[2...], as: UTF8.self)))
            default: frames.append(.other(kind: kind, body: body))
            }
        }
        return frames
    }

    private static func frame(kind: UInt8, body: [UInt8]) -> [UInt8] {
        le32(UInt32(body.count + 1)) + [kind] + body
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
    private static func readLE32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
