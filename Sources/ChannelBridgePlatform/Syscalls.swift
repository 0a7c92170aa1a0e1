import CChannelBridgeSyscalls
import Glibc

/// A Unix socket address (`sockaddr_un`), made by `Syscalls.address(for:)`.
package struct SocketAddress: Sendable {
    fileprivate let raw: sockaddr_un
}

/// Thin wrappers over the socket, descriptor and process calls of the transport: EINTR retried,
/// failures as error numbers (`Errno`), so that no module above this one imports Glibc.
package enum Syscalls {
    /// The 12-byte `struct ucred` that `SO_PEERCRED` fills; Glibc hides it behind `_GNU_SOURCE`.
    private struct UCred {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// `accept4` is also behind `_GNU_SOURCE`; it is looked up once at run time so that accepted
    /// descriptors are close-on-exec from the start (no window for a concurrent fork + exec).
    private typealias Accept4 =
        @convention(c) (
            Int32, UnsafeMutablePointer<sockaddr>?,
            UnsafeMutablePointer<socklen_t>?, Int32
        ) -> Int32
    private static let accept4: Accept4? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else { return nil }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    /// iovecs per sendmsg: small frames are coalesced, so few are needed, and pinning stays shallow.
    private static let maxIOVectors = 64

    /// The calling thread's `errno`.
    package static var lastError: Int32 { errno }

    /// The home directory the password database gives the process's user, if any.
    package static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }

    package static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A `sockaddr_un` for `path`, or nil when the path does not fit (107 bytes and a NUL).
    package static func address(for path: String) -> SocketAddress? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return SocketAddress(raw: address)
    }

    /// A new close-on-exec Unix stream socket, or the negated errno.
    package static func newStreamSocket(nonBlocking: Bool = false) -> Int32 {
        let flags = closeOnExec | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_UNIX, streamType | flags, 0)
        return fd >= 0 ? fd : -errno
    }

    private static func withSocketAddress<R>(
        _ address: SocketAddress, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) -> R {
        var address = address.raw
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Connects `fd`, blocking. An interrupted connect goes on in the kernel, so EINTR is
    /// followed by waiting for the outcome rather than by a second connect.
    package static func connect(_ fd: Int32, to address: SocketAddress) -> Int32 {
        let result = withSocketAddress(address) { Glibc.connect(fd, $0, $1) }
        if result == 0 { return 0 }
        let code = errno
        guard code == EINTR || code == EINPROGRESS || code == EALREADY else { return code }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while Glibc.poll(&poller, 1, -1) < 0 && errno == EINTR {}
        var pending: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else { return errno }
        return pending
    }

    /// Connects `fd` (a blocking Unix stream socket), waiting at most `milliseconds` (> 0): 0, the
    /// errno, or ETIMEDOUT when the wait ran out. A Unix socket connects at once or, when the
    /// listener's backlog is full, waits in the kernel for room; `poll` cannot wait for that (an
    /// unconnected Unix stream socket polls writable and hung up at once), so the kernel's own
    /// wait is bounded with `SO_SNDTIMEO`, which it ends with EAGAIN. EINTR there leaves the socket
    /// unconnected and is retried with the time left; EINPROGRESS (another family) is waited for
    /// with `poll` and read with `SO_ERROR`. `SO_SNDTIMEO` is cleared again before returning.
    package static func connect(_ fd: Int32, to address: SocketAddress, milliseconds: Int64) -> Int32 {
        let deadline = monotonicSeconds() + Double(milliseconds) / 1000
        func remaining() -> Double { deadline - monotonicSeconds() }
        defer { setSendTimeout(fd, seconds: 0) }
        while true {
            let left = remaining()
            guard left > 0 else { return ETIMEDOUT }
            guard setSendTimeout(fd, seconds: left) == 0 else { return errno }
            if withSocketAddress(address, { Glibc.connect(fd, $0, $1) }) == 0 { return 0 }
            switch errno {
            case EINTR:
                continue
            case EISCONN:
                return 0
            case EAGAIN:
                // Still no room once SO_SNDTIMEO passed (or at once, when it was rounded to 0).
                if remaining() <= 0 { return ETIMEDOUT }
                continue
            case EINPROGRESS, EALREADY:
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                while true {
                    let left = remaining()
                    guard left > 0 else { return ETIMEDOUT }
                    let ready = Glibc.poll(&poller, 1, Int32(min(left * 1000 + 1, Double(Int32.max))))
                    if ready > 0 { break }
                    if ready < 0, errno != EINTR { return errno }
                }
                var pending: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else { return errno }
                return pending
            case let code:
                return code
            }
        }
    }

    /// Sets `SO_SNDTIMEO` (0: no limit): 0, or the errno.
    @discardableResult
    private static func setSendTimeout(_ fd: Int32, seconds: Double) -> Int32 {
        let whole = seconds.rounded(.down)
        // Rounded up to a microsecond, so a positive wait never becomes 0 ("no limit").
        var value = timeval(tv_sec: Int(whole), tv_usec: Int(((seconds - whole) * 1e6).rounded(.up)))
        if value.tv_usec >= 1_000_000 { value.tv_sec += 1; value.tv_usec -= 1_000_000 }
        return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 ? 0 : errno
    }

    /// One non-blocking connect attempt: 0, or the errno (a probe of whether anything listens).
    package static func tryConnect(_ fd: Int32, to address: SocketAddress) -> Int32 {
        withSocketAddress(address) { Glibc.connect(fd, $0, $1) } == 0 ? 0 : errno
    }

    /// Binds `fd` to `address`: 0, or the errno.
    package static func bind(_ fd: Int32, to address: SocketAddress) -> Int32 {
        withSocketAddress(address) { Glibc.bind(fd, $0, $1) } == 0 ? 0 : errno
    }

    /// Marks `fd` as listening: 0, or the errno.
    package static func listen(_ fd: Int32, backlog: Int32) -> Int32 {
        Glibc.listen(fd, backlog) == 0 ? 0 : errno
    }

    /// Shuts both directions of `fd` down (a blocked `accept` or `read` on it returns).
    package static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Accepts one connection; returns the descriptor or the negated errno.
    package static func accept(_ listener: Int32) -> Int32 {
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

    /// Asks for a send buffer of `bytes` (`SO_SNDBUF`; Linux doubles it for its bookkeeping and
    /// caps it at `net.core.wmem_max`): 0, or the errno.
    package static func setSendBufferSize(_ fd: Int32, _ bytes: Int) -> Int32 {
        var value = Int32(clamping: bytes)
        return setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 ? 0 : errno
    }

    /// The send buffer's size as the kernel accounts it (`SO_SNDBUF`), or nil.
    package static func sendBufferSize(_ fd: Int32) -> Int? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, &length) == 0 ? Int(value) : nil
    }

    /// The connected peer's process, user and group (`SO_PEERCRED`), or nil.
    package static func peerCredentials(_ fd: Int32) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        var credentials = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            Int(length) == MemoryLayout<UCred>.size
        else { return nil }
        return (credentials.pid, credentials.uid, credentials.gid)
    }

    /// Reads into `buffer`, blocking; EINTR retried. Returns the count, 0 at end of file, or the
    /// negated errno.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = cb_read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            return -Int(errno)
        }
    }

    /// Sends as much of `bytes` as the socket takes now, without blocking or raising SIGPIPE.
    /// Returns the byte count, or the negated errno (`-EAGAIN` when the socket is full).
    package static func sendNow(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        while true {
            let sent = cb_send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if sent >= 0 { return sent }
            if errno == EINTR { continue }
            return -Int(errno)
        }
    }

    /// Sends as much of `chunks` as the socket takes now, without blocking or raising SIGPIPE:
    /// the first from `firstOffset` on, and of the last only its first `lastCount` bytes when
    /// given (a send block filled that far). Returns the byte count, or the negated errno
    /// (`-EAGAIN` when the socket is full).
    package static func sendNow(
        _ fd: Int32, _ chunks: ArraySlice<[UInt8]>, firstOffset: Int, lastCount: Int? = nil
    ) -> Int {
        // One chunk (a small frame, or many coalesced) is the common case: plain `send` spares
        // the kernel copying in a message header and an iovec array.
        if chunks.count == 1 {
            return chunks[chunks.startIndex].withUnsafeBytes { raw in
                let end = lastCount ?? raw.count
                while true {
                    let sent = cb_send(
                        fd, raw.baseAddress! + firstOffset, end - firstOffset,
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
                // `lastCount` is of the last of all the chunks, which this send reaches only
                // when there are at most `maxIOVectors` of them.
                let end = index == chunks.count - 1 ? lastCount ?? pointers[index].count : pointers[index].count
                vectors[index] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: pointers[index].baseAddress! + skip),
                    iov_len: end - skip)
            }
            return vectors.withUnsafeMutableBufferPointer { vectorBuffer in
                var message = msghdr()
                message.msg_iov = vectorBuffer.baseAddress
                message.msg_iovlen = count
                while true {
                    let sent = cb_sendmsg(fd, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    if sent >= 0 { return sent }
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
            }
        }
    }

    /// Gives `body` stable pointers to the bytes of each array, all at once.
    private static func withPinnedBuffers<R>(
        _ chunks: ArraySlice<[UInt8]>,
        _ body: ([UnsafeRawBufferPointer]) -> R
    ) -> R {
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
    package static func waitWritable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = Glibc.poll(&poller, 1, milliseconds)
        return ready != 0
    }

    /// `eventfd` is not in the Glibc module map either; looked up once.
    private typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    private static let eventfd: EventFD? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "eventfd") else { return nil }
        return unsafeBitCast(symbol, to: EventFD.self)
    }()

    /// A non-blocking, close-on-exec eventfd, or -1 when none can be made.
    package static func newEvent() -> Int32 {
        let closeOnExec: Int32 = 0o2000000, nonBlocking: Int32 = 0o4000  // EFD_CLOEXEC, EFD_NONBLOCK
        return eventfd?(0, closeOnExec | nonBlocking) ?? -1
    }

    /// Makes `fd` (an eventfd) readable.
    package static func signalEvent(_ fd: Int32) {
        var one: UInt64 = 1
        while Glibc.write(fd, &one, 8) < 0 && errno == EINTR {}
    }

    /// Makes `fd` (an eventfd) not readable again.
    package static func drainEvent(_ fd: Int32) {
        var value: UInt64 = 0
        while Glibc.read(fd, &value, 8) < 0 && errno == EINTR {}
    }

    package static func closeDescriptor(_ fd: Int32) {
        // Linux releases the descriptor even when close reports EINTR: never retry.
        _ = Glibc.close(fd)
    }

    /// What `poll` reported for one descriptor.
    package struct PollResult: Sendable {
        package let events: Int16
        package var readable: Bool { events & Int16(POLLIN) != 0 }
        /// POLLHUP on a Unix stream socket means the peer has closed its end completely.
        package var hungUp: Bool { events & Int16(POLLHUP | POLLERR) != 0 }
        package var hungUpOrInvalid: Bool { events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 }
    }

    /// Waits up to `milliseconds` (-1: for ever) for `fd` to be readable (when `forInput`) or hung up.
    package static func poll(_ fd: Int32, forInput: Bool, milliseconds: Int32) -> PollResult {
        var poller = pollfd(fd: fd, events: forInput ? Int16(POLLIN) : 0, revents: 0)
        _ = Glibc.poll(&poller, 1, milliseconds)
        return PollResult(events: poller.revents)
    }

    /// Waits for ever for `fd` (readable when `forInput`, or hung up) or `wake` (readable);
    /// EINTR retried. Nil when `poll` failed otherwise. The two `pollfd`s are on the stack and go
    /// through `cb_poll`: an array of them would be allocated per wait, and a driven call waits
    /// once per call.
    package static func poll(_ fd: Int32, forInput: Bool, orReadable wake: Int32) -> (PollResult, wake: PollResult)? {
        var pollers = (
            pollfd(fd: fd, events: forInput ? Int16(POLLIN) : 0, revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        )
        let result = withUnsafeMutableBytes(of: &pollers) { raw -> Int32 in
            let first = raw.baseAddress!.assumingMemoryBound(to: pollfd.self)
            while true {
                let count = Int32(truncatingIfNeeded: cb_poll(first, 2, -1))
                if count >= 0 || errno != EINTR { return count }
            }
        }
        if result < 0 { return nil }
        return (PollResult(events: pollers.0.revents), PollResult(events: pollers.1.revents))
    }

    /// Sleeps the calling (dedicated) thread for `microseconds`.
    package static func sleep(microseconds: UInt32) {
        _ = usleep(microseconds)
    }

    /// The value of the environment variable `name`, if set.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets the environment variable `name` for this process and the children it starts. Not
    /// safe while other threads read the environment: for an executable's start-up.
    package static func setEnvironment(_ name: String, _ value: String) {
        _ = setenv(name, value, 1)
    }

    package static func removeEnvironment(_ name: String) {
        _ = unsetenv(name)
    }

    package static var effectiveUserID: UInt32 { geteuid() }
    package static var processID: Int32 { getpid() }
}

extension Syscalls {
    /// The standard input's descriptor.
    package static let standardInput: Int32 = STDIN_FILENO

    /// Seconds on the monotonic clock, cheap enough to read around every call.
    package static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension Syscalls.PollResult {
    /// Anything at all: readable, hung up or failed.
    package var isReady: Bool { events != 0 }
}

extension Syscalls {
    /// Sends all of `bytes` on `fd`, blocking while the socket is full, without raising SIGPIPE:
    /// the count sent, or the negated errno.
    package static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while offset < bytes.count {
            let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                return -Int(errno)
            }
            offset += sent
        }
        return offset
    }

    /// Whether the standard input is a terminal.
    package static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Ends process `pid` at once (SIGKILL); a negative `pid` ends every process of group `-pid`.
    package static func killImmediately(_ pid: Int32) {
        _ = kill(pid, SIGKILL)
    }
}
