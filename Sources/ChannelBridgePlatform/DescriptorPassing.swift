import CChannelBridgeSyscalls
import Glibc

/// Unix socket pairs and descriptors passed over them (`SCM_RIGHTS`): how an isolated host hands
/// an accepted connection to a worker process.
package enum DescriptorPassing {
    /// A connected pair of Unix stream sockets, both close-on-exec; `nil` with the error number
    /// in `Syscalls.lastError` when none can be made.
    package static func socketPair() -> (Int32, Int32)? {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return nil
        }
        return (pair[0], pair[1])
    }

    /// Sends `fd` with `tag` (8 bytes) over `socket`, blocking; 0, or the error number.
    package static func send(_ fd: Int32, tag: UInt64, over socket: Int32) -> Int32 {
        var bytes = tag.littleEndian
        let sent = withUnsafeBytes(of: &bytes) { cb_send_descriptor(socket, fd, $0.baseAddress, 8) }
        return sent == 8 ? 0 : (sent < 0 ? errno : EPROTO)
    }

    /// Receives a descriptor and its tag from `socket`, blocking; `nil` at end of file, on an
    /// error, or when the bytes came without a descriptor.
    package static func receive(from socket: Int32) -> (fd: Int32, tag: UInt64)? {
        var bytes: UInt64 = 0
        var fd: Int32 = -1
        let received = withUnsafeMutableBytes(of: &bytes) { cb_receive_descriptor(socket, &fd, $0.baseAddress, 8) }
        guard received == 8, fd >= 0 else {
            if fd >= 0 { Glibc.close(fd) }
            return nil
        }
        return (fd, UInt64(littleEndian: bytes))
    }

    /// What `socket` holds now, up to `limit` bytes, without waiting.
    package static func readAvailable(_ socket: Int32, limit: Int = 4096) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let received = bytes.withUnsafeMutableBytes {
                recv(socket, $0.baseAddress! + count, limit - count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && errno == EINTR { continue }
            if received <= 0 { break }
            count += received
        }
        return Array(bytes[..<count])
    }

    /// Ends the writing half of `socket`: the peer reads end of file, and this side can still read.
    package static func endWriting(_ socket: Int32) {
        _ = shutdown(socket, Int32(SHUT_WR))
    }

    /// Makes `fd` close-on-exec: a descriptor inherited on purpose (a worker's control channel)
    /// that no process this one starts should hold in turn (Swift's backtracer, which outlives a
    /// crashed worker for a while, would keep the host from seeing the worker's end).
    package static func closeOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
}
