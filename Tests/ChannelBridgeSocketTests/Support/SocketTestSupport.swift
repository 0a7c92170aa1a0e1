import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Foundation
import Glibc

/// A plain blocking client that speaks raw bytes, for feeding malformed frames to a listener.
enum RawClient {
    /// Connects to `path`, writes `bytes`, then reads until the listener closes (or `timeout`
    /// seconds pass). Returns what was read, or nil if the connect failed.
    static func exchange(path: String, bytes: [UInt8], timeout: Int32 = 20) -> [UInt8]? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard connect(fd: fd, path: path) == 0 else { return nil }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }  // the listener may close before taking everything
            offset += sent
        }
        return readToEnd(fd, timeout: timeout)
    }

    static func connect(fd: Int32, path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Reads until end of file, a reset (the listener may close with our bytes unread), or
    /// `timeout` seconds without a byte (stretched like a hang guard in sanitized builds).
    static func readToEnd(_ fd: Int32, timeout: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let milliseconds = Int32(HangGuardScale.scaled(Int(timeout)) * 1000)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else { return received }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                received += chunk[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return received
            }
        }
    }

    /// Binds a plain listening socket at `path` (no lock file): another process serving the path.
    static func listen(path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(bound == 0 && Glibc.listen(fd, 8) == 0, "raw listen failed: \(errno)")
        return fd
    }
}

/// Decodes every frame in `bytes` (the reply of a listener to a raw client).
func frames(in bytes: [UInt8]) throws -> [Frame] {
    var decoder = FrameDecoder(maxFrameLength: Int(UInt32.max))
    decoder.append(bytes)
    var frames: [Frame] = []
    while let frame = try decoder.next() { frames.append(frame) }
    return frames
}

/// Descriptors of this process.
enum Descriptors {
    static func all() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    static var count: Int { all().count }

    /// Descriptors that belong to the socket at `path`: the listening socket, accepted and
    /// client sockets (by their socket or peer address), and its lock file. Other tests running
    /// at the same time cannot affect this count, unlike the plain count.
    static func count(belongingTo path: String) -> Int {
        all().filter { fd in
            var link = [CChar](repeating: 0, count: 4096)
            let length = readlink("/proc/self/fd/\(fd)", &link, link.count - 1)
            guard length > 0 else { return false }
            let target = String(decoding: link[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target == path + ".lock" { return true }
            guard target.hasPrefix("socket:") else { return false }
            return socketName(fd, peer: false) == path || socketName(fd, peer: true) == path
        }.count
    }

    private static func socketName(_ fd: Int32, peer: Bool) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
