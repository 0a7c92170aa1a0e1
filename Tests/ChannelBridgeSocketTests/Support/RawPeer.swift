import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Foundation
import Glibc

/// A client socket driven by hand from a test: it writes frames when told and reads only when
/// told, so a test can play a peer that does not read, never says HELLO, or vanishes. Blocking
/// calls belong on a thread of their own (`onThread`).
final class RawPeer: @unchecked Sendable {
    // Invariant: `fd` is set once; `decoder` is touched by one thread at a time (the test's reads).
    let fd: Int32
    private var decoder = FrameDecoder(maxFrameLength: Int(UInt32.max))

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, RawClient.connect(fd: fd, path: path) == 0 else {
            throw HangGuardFailure("cannot connect to \(path): errno \(errno)")
        }
    }

    /// The host end of one session: listens on `path` and returns a listening descriptor whose
    /// first connection `init(accepting:)` takes, so that a test can play a host that does not
    /// read. A connect to it succeeds before anything is accepted.
    static func listen(on path: String) throws -> Int32 {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, Glibc.listen(listener, 1) == 0 else {
            throw HangGuardFailure("cannot listen on \(path): errno \(errno)")
        }
        return listener
    }

    /// Accepts the first connection waiting on `listener`, then closes `listener`.
    init(accepting listener: Int32) throws {
        fd = accept(listener, nil, nil)
        Glibc.close(listener)
        guard fd >= 0 else { throw HangGuardFailure("accept failed: errno \(errno)") }
    }

    /// Writes all of `bytes` (blocking while the socket is full).
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    func write(_ frames: [Frame]) throws {
        var bytes: [UInt8] = []
        for frame in frames { try FrameEncoder.encode(frame, into: &bytes) }
        write(bytes)
    }

    /// Reads frames until `count` have come, the peer closes, or `seconds` pass (a hang guard).
    func readFrames(_ count: Int = .max, seconds: Int32 = 60) throws -> [Frame] {
        var frames: [Frame] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while frames.count < count {
            if let frame = try decoder.next() {
                frames.append(frame)
                continue
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(HangGuardScale.scaled(Int(seconds))) * 1000) > 0 else {
                throw HangGuardFailure("no frame within \(seconds) s; got \(frames.count) of \(count)")
            }
            let read = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if read < 0, errno == EINTR { continue }
            if read <= 0 { break }
            decoder.append(chunk[..<read])
        }
        return frames
    }

    /// Reads frames until `isLast` holds for one (included), the peer closes, or `seconds` pass.
    func readFrames(until isLast: (Frame) -> Bool, seconds: Int32 = 60) throws -> [Frame] {
        var frames: [Frame] = []
        while true {
            let next = try readFrames(1, seconds: seconds)
            guard let frame = next.first else { return frames }
            frames.append(frame)
            if isLast(frame) { return frames }
        }
    }

    func close() {
        Glibc.close(fd)
    }

    static func hello(_ name: String = "raw test peer") -> Frame {
        .hello(Frame.Hello(role: .client, peerName: name))
    }
}

struct HangGuardFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
