import ChannelBridgePlatform

/// A bound, listening Unix socket and the lock file that marks its path as served.
///
/// Binding never takes over a live socket: the path's lock file (`<path>.lock`, held with
/// `flock` for the listener's lifetime) tells hosts of this implementation apart, and a
/// connect probe catches any other process serving the path. Only a socket file that refuses
/// connections (stale: its process is gone) is removed and replaced.
struct ListeningSocket: Sendable {
    let fd: Int32
    let lockFD: Int32
    let device: UInt64
    let inode: UInt64

    static func open(path: String, backlog: Int32) throws(SocketError) -> ListeningSocket {
        guard let address = Syscalls.address(for: path) else {
            throw SocketError(.invalidPath, "a Unix socket path must have 1 to 107 bytes and no NUL", path: path)
        }
        try createParentDirectories(of: path)
        // Before anything is created in the directory: a directory someone else controls (made
        // by them before us, even after our mkdir failed with EEXIST) lets them replace our files.
        try SocketPath.checkDirectory(of: path)
        let lockFD = try acquireLock(path: path)
        do throws(SocketError) {
            let fd = try Syscalls.streamSocket()
            do throws(SocketError) {
                try bind(fd, address, path: path)
                let chmodFailure = FileCalls.chmod(path, 0o600)
                guard chmodFailure == 0 else { throw Syscalls.failure("chmod", path: path, errno: chmodFailure) }
                let listenFailure = Syscalls.listen(fd, backlog: backlog)
                guard listenFailure == 0 else { throw Syscalls.failure("listen", path: path, errno: listenFailure) }
                guard let info = FileCalls.linkStatus(path) else { throw Syscalls.failure("lstat", path: path) }
                return ListeningSocket(fd: fd, lockFD: lockFD, device: info.device, inode: info.inode)
            } catch {
                Syscalls.closeDescriptor(fd)
                throw error
            }
        } catch {
            Syscalls.closeDescriptor(lockFD)
            throw error
        }
    }

    /// Removes the socket file if it is still the one this listener bound, then releases the lock.
    func release(path: String) {
        if let info = FileCalls.linkStatus(path), info.device == device, info.inode == inode {
            _ = FileCalls.unlink(path)
        }
        Syscalls.closeDescriptor(lockFD)
    }

    /// Creates missing parent directories with mode 0700; existing ones are left as they are
    /// (the directory holding the socket is then checked by `SocketPath.checkDirectory`).
    private static func createParentDirectories(of path: String) throws(SocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        if let info = FileCalls.status(parent) {
            guard info.isDirectory else {
                throw SocketError(.invalidPath, "\(parent) is not a directory", path: path)
            }
            return
        }
        var prefix = parent.hasPrefix("/") ? "" : "."
        for component in parent.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/\(component)"
            let made = FileCalls.mkdir(prefix, 0o700)
            if made == 0 {
                // mkdir's mode is filtered by the umask; the design wants exactly 0700.
                let chmodFailure = FileCalls.chmod(prefix, 0o700)
                guard chmodFailure == 0 else { throw Syscalls.failure("chmod", path: prefix, errno: chmodFailure) }
            } else if made != Errno.EEXIST {
                throw Syscalls.failure("mkdir", path: prefix, errno: made)
            }
        }
    }

    private static func acquireLock(path: String) throws(SocketError) -> Int32 {
        let lockPath = path + ".lock"
        let fd = FileCalls.openLockFile(lockPath)
        guard fd >= 0 else { throw Syscalls.failure("open", path: lockPath, errno: -fd) }
        let code = FileCalls.tryLockExclusive(fd)
        if code != 0 {
            Syscalls.closeDescriptor(fd)
            if code == Errno.EWOULDBLOCK {
                throw SocketError(
                    .addressInUse, "another host is serving this socket (it holds \(lockPath))",
                    path: path, errno: code)
            }
            throw Syscalls.failure("flock", path: lockPath, errno: code)
        }
        return fd
    }

    private static func bind(_ fd: Int32, _ address: SocketAddress, path: String) throws(SocketError) {
        for _ in 0..<3 {
            let code = Syscalls.bind(fd, to: address)
            if code == 0 { return }
            guard code == Errno.EADDRINUSE else { throw Syscalls.failure("bind", path: path, errno: code) }
            guard let info = FileCalls.linkStatus(path) else { continue }  // vanished meanwhile: try again
            guard info.isSocket else {
                throw SocketError(.notASocket, "the path exists and is not a socket; it is left alone", path: path)
            }
            guard try isStale(address, path: path) else {
                throw SocketError(
                    .addressInUse, "a live socket is being served here; it is never taken over",
                    path: path, errno: code)
            }
            let unlinked = FileCalls.unlink(path)
            guard unlinked == 0 || unlinked == Errno.ENOENT else {
                throw Syscalls.failure("unlink", path: path, errno: unlinked)
            }
        }
        throw SocketError(.addressInUse, "the path kept being taken while binding", path: path)
    }

    /// True when nothing accepts on the socket file (ECONNREFUSED). A successful connect, or a
    /// full backlog (EAGAIN), means a live listener.
    private static func isStale(_ address: SocketAddress, path: String) throws(SocketError) -> Bool {
        let probe = try Syscalls.streamSocket(nonBlocking: true)
        defer { Syscalls.closeDescriptor(probe) }
        return Syscalls.tryConnect(probe, to: address) == Errno.ECONNREFUSED
    }
}
