import Glibc

/// Thin wrappers over the system calls this module uses: EINTR retried, errors as `SocketError`.
enum Syscalls {
    /// The 12-byte `struct ucred` that `SO_PEERCRED` fills; Glibc hides it behind `_GNU_SOURCE`.
    struct UCred {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// `accept4` is also behind `_GNU_SOURCE`; it is looked up once at run time so that accepted
    /// descriptors are close-on-exec from the start (no window for a concurrent fork + exec).
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?,
                                                UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private static let accept4: Accept4? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else { return nil }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    static let streamType = Int32(SOCK_STREAM.rawValue)
    static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    /// iovecs per sendmsg: small frames are coalesced, so few are needed, and pinning stays shallow.
    static let maxIOVectors = 64

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    static func failure(_ call: String, code: SocketError.Code = .systemCall, path: String? = nil,
                        errno value: Int32 = errno) -> SocketError {
        SocketError(code, "\(call) failed: \(errorText(value))", path: path, errno: value)
    }

    /// A `sockaddr_un` for `path`, or nil when the path does not fit (107 bytes and a NUL).
    static func address(for path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func newStreamSocket(nonBlocking: Bool = false) throws(SocketError) -> Int32 {
        let flags = closeOnExec | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_UNIX, streamType | flags, 0)
        guard fd >= 0 else { throw failure("socket") }
        return fd
    }

    static func withSocketAddress<R>(_ address: sockaddr_un, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Connects `fd`, blocking. An interrupted connect goes on in the kernel, so EINTR is
    /// followed by waiting for the outcome rather than by a second connect.
    static func connect(_ fd: Int32, to address: sockaddr_un) -> Int32 {
        let result = withSocketAddress(address) { Glibc.connect(fd, $0, $1) }
        if result == 0 { return 0 }
        let code = errno
        guard code == EINTR || code == EINPROGRESS || code == EALREADY else { return code }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while poll(&poller, 1, -1) < 0 && errno == EINTR {}
        var pending: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else { return errno }
        return pending
    }

    /// Accepts one connection; returns the descriptor or the negated errno.
    static func accept(_ listener: Int32) -> Int32 {
        while true {
            let fd: Int32
            if let accept4 {
                fd = accept4(listener, nil, nil, closeOnExec)
            } else {
                fd = Glibc.accept(listener, nil, nil)
                if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            }
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            return -errno
        }
    }

    static func peerCredentials(_ fd: Int32) -> PeerCredentials? {
        var credentials = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout<UCred>.size else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// Reads into `buffer`, blocking; EINTR retried. Returns the count, 0 at end of file, or the
    /// negated errno.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            return -Int(errno)
        }
    }

    /// Sends as much of `chunks` as the socket takes now, without blocking or raising SIGPIPE.
    /// Returns the byte count, or the negated errno (`-EAGAIN` when the socket is full).
    static func sendNow(_ fd: Int32, _ chunks: ArraySlice<[UInt8]>, firstOffset: Int) -> Int {
        // One chunk (a small frame, or many coalesced) is the common case: plain `send` spares
        // the kernel copying in a message header and an iovec array.
        if chunks.count == 1 {
            return chunks[chunks.startIndex].withUnsafeBytes { raw in
                while true {
                    let sent = send(fd, raw.baseAddress! + firstOffset, raw.count - firstOffset,
                                    Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    if sent >= 0 { return sent }
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
            }
        }
        let count = min(chunks.count, maxIOVectors)
        var vectors = [iovec](repeating: iovec(), count: count)
        return withPinnedBuffers(chunks.prefix(count)) { pointers in
            for index in 0..<count {
                let skip = index == 0 ? firstOffset : 0
                vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: pointers[index].baseAddress! + skip),
                                       iov_len: pointers[index].count - skip)
            }
            return vectors.withUnsafeMutableBufferPointer { vectorBuffer in
                var message = msghdr()
                message.msg_iov = vectorBuffer.baseAddress
                message.msg_iovlen = count
                while true {
                    let sent = sendmsg(fd, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    if sent >= 0 { return sent }
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
            }
        }
    }

    /// Gives `body` stable pointers to the bytes of each array, all at once.
    private static func withPinnedBuffers<R>(_ chunks: ArraySlice<[UInt8]>,
                                             _ body: ([UnsafeRawBufferPointer]) -> R) -> R {
        var pointers: [UnsafeRawBufferPointer] = []
        pointers.reserveCapacity(chunks.count)
        func pin(_ index: ArraySlice<[UInt8]>.Index) -> R {
            if index == chunks.endIndex { return body(pointers) }
            return chunks[index].withUnsafeBytes { raw in
                pointers.append(raw)
                return pin(chunks.index(after: index))
            }
        }
        return pin(chunks.startIndex)
    }

    /// Waits until `fd` can take more bytes or `milliseconds` pass; false on timeout.
    static func waitWritable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        return ready != 0
    }

    /// `eventfd` is not in the Glibc module map either; looked up once.
    private typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    private static let eventfd: EventFD? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "eventfd") else { return nil }
        return unsafeBitCast(symbol, to: EventFD.self)
    }()

    /// A non-blocking, close-on-exec eventfd, or -1 when none can be made.
    static func newEvent() -> Int32 {
        let closeOnExec: Int32 = 0o2000000, nonBlocking: Int32 = 0o4000   // EFD_CLOEXEC, EFD_NONBLOCK
        return eventfd?(0, closeOnExec | nonBlocking) ?? -1
    }

    /// Makes `fd` (an eventfd) readable.
    static func signalEvent(_ fd: Int32) {
        var one: UInt64 = 1
        while Glibc.write(fd, &one, 8) < 0 && errno == EINTR {}
    }

    /// Makes `fd` (an eventfd) not readable again.
    static func drainEvent(_ fd: Int32) {
        var value: UInt64 = 0
        while Glibc.read(fd, &value, 8) < 0 && errno == EINTR {}
    }

    static func closeDescriptor(_ fd: Int32) {
        // Linux releases the descriptor even when close reports EINTR: never retry.
        _ = Glibc.close(fd)
    }
}
