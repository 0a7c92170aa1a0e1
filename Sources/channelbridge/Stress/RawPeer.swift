import ChannelBridgeCodec
import ChannelBridgeMessenger
import Foundation
import Glibc

/// A client that writes wire-protocol frames itself over a plain socket and reads only when told
/// to: the misbehaving peers of the stress scenarios (one that never reads, one that never says
/// HELLO, one that vanishes). Blocking calls run on the caller's thread: call it from a thread
/// of its own (`ChildProcess.onThread`), never from the concurrency pool.
final class RawPeer: @unchecked Sendable {
    // Invariant: `fd` is set once; `input` is touched only by the one thread reading at a time.
    let fd: Int32
    private var input: [UInt8] = []

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect \(path): \(String(cString: strerror(code)))")
        }
    }

    static func hello(_ name: String = "channelbridge stress raw peer") -> [UInt8] {
        (try? FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: name)))) ?? []
    }

    static func call(id: UInt32, channel: String, method: String, arguments: StandardValue) throws -> [UInt8] {
        let payload = try StandardMethodCodec().encodeMethodCall(MethodCall(method, arguments: arguments))
        return try FrameEncoder.encode(.request(id: id, channel: channel, payload: payload))
    }

    /// Writes all of `bytes`, blocking while the socket is full. False if the connection failed.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes as much of `bytes[offset...]` as the socket takes now; returns the new offset, or
    /// nil if the connection failed.
    func writeNow(_ bytes: [UInt8], from offset: Int) -> Int? {
        var offset = offset
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return offset }
                return nil
            }
            offset += written
        }
        return offset
    }

    /// Waits up to `milliseconds` for room to write.
    func waitWritable(milliseconds: Int32) {
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&poller, 1, milliseconds)
    }

    /// The next frame as (kind, body), or nil at end of file or when `deadline` passes first.
    func readFrame(until deadline: ContinuousClock.Instant) -> (kind: UInt8, body: [UInt8])? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if input.count >= 5 {
                let length = Int(UInt32(input[0]) | UInt32(input[1]) << 8 | UInt32(input[2]) << 16 | UInt32(input[3]) << 24)
                if input.count >= 4 + length, length >= 1 {
                    let frame = (input[4], Array(input[5..<(4 + length)]))
                    input.removeFirst(4 + length)
                    return frame
                }
            }
            let left = deadline - .now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(1000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            input += chunk[0..<count]
        }
    }

    /// Reads and drops everything until end of file or `deadline`; true at end of file.
    func readUntilClosed(until deadline: ContinuousClock.Instant) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return true }
        }
    }

    func close() {
        Glibc.close(fd)
    }
}
