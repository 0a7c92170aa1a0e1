import Glibc

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
        let lockFD = try acquireLock(path: path)
        do throws(SocketError) {
            let fd = try Syscalls.newStreamSocket()
            do throws(SocketError) {
                try bind(fd, address, path: path)
                guard chmod(path, 0o600) == 0 else { throw Syscalls.failure("chmod", path: path) }
                guard listen(fd, backlog) == 0 else { throw Syscalls.failure("listen", path: path) }
                var info = stat()
                guard lstat(path, &info) == 0 else { throw Syscalls.failure("lstat", path: path) }
                return ListeningSocket(fd: fd, lockFD: lockFD, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
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
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode {
            _ = unlink(path)
        }
        Syscalls.closeDescriptor(lockFD)
    }

    /// Creates missing parent directories with mode 0700; existing ones are left as they are.
    private static func createParentDirectories(of path: String) throws(SocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if stat(parent, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw SocketError(.invalidPath, "\(parent) is not a directory", path: path)
            }
            return
        }
        var prefix = parent.hasPrefix("/") ? "" : "."
        for component in parent.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/\(component)"
            if mkdir(prefix, 0o700) == 0 {
                // mkdir's mode is filtered by the umask; the design wants exactly 0700.
                guard chmod(prefix, 0o700) == 0 else { throw Syscalls.failure("chmod", path: prefix) }
            } else if errno != EEXIST {
                throw Syscalls.failure("mkdir", path: prefix)
            }
        }
    }

    private static func acquireLock(path: String) throws(SocketError) -> Int32 {
        let lockPath = path + ".lock"
        let fd = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Syscalls.failure("open", path: lockPath) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            Syscalls.closeDescriptor(fd)
            if code == EWOULDBLOCK {
                throw SocketError(.addressInUse, "another host is serving this socket (it holds \(lockPath))",
                                  path: path, errno: code)
            }
            throw Syscalls.failure("flock", path: lockPath, errno: code)
        }
        return fd
    }

    private static func bind(_ fd: Int32, _ address: sockaddr_un, path: String) throws(SocketError) {
        for _ in 0..<3 {
            if Syscalls.withSocketAddress(address, { Glibc.bind(fd, $0, $1) }) == 0 { return }
            let code = errno
            guard code == EADDRINUSE else { throw Syscalls.failure("bind", path: path, errno: code) }
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }   // vanished meanwhile: try again
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError(.notASocket, "the path exists and is not a socket; it is left alone", path: path)
            }
            guard try isStale(address, path: path) else {
                throw SocketError(.addressInUse, "a live socket is being served here; it is never taken over",
                                  path: path, errno: code)
            }
            guard unlink(path) == 0 || errno == ENOENT else { throw Syscalls.failure("unlink", path: path) }
        }
        throw SocketError(.addressInUse, "the path kept being taken while binding", path: path)
    }

    /// True when nothing accepts on the socket file (ECONNREFUSED). A successful connect, or a
    /// full backlog (EAGAIN), means a live listener.
    private static func isStale(_ address: sockaddr_un, path: String) throws(SocketError) -> Bool {
        let probe = try Syscalls.newStreamSocket(nonBlocking: true)
        defer { Syscalls.closeDescriptor(probe) }
        if Syscalls.withSocketAddress(address, { Glibc.connect(probe, $0, $1) }) == 0 { return false }
        return errno == ECONNREFUSED
    }
}
