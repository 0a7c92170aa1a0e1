#if canImport(Glibc)
import Glibc
#endif

/// The store's system calls on files and directories. Every function blocks (disk I/O, `flock`,
/// `fsync`), so callers run them on the store's dispatch queues, never on the cooperative pool.
enum FileSystem {
    /// The whole file, or `nil` when it does not exist. A reader needs no lock: writers replace the
    /// file by `rename`, so an open descriptor sees either the old or the new file, both complete.
    static func readFile(at path: String, what: String) throws(StoreError) -> [UInt8]? {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("cannot open \(what) '\(path)'", path: path, errno: code)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { read(fd, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { throw failure("cannot read \(what) '\(path)'", path: path, errno: errno) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Creates `path` and any missing parents (mode 0700: app-group data is the user's own).
    static func makeDirectories(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += component
            if mkdir(prefix, 0o700) != 0 {
                let code = errno
                if code != EEXIST { throw failure("cannot create directory '\(prefix)'", path: prefix, errno: code) }
            }
            prefix += "/"
        }
    }

    /// Opens (creating if needed) the lock file and blocks until this process holds `LOCK_EX` on
    /// it. The lock belongs to the returned descriptor; closing it releases the lock.
    static func lockExclusively(_ path: String) throws(StoreError) -> Int32 {
        let fd = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        if fd < 0 { throw failure("cannot open lock file '\(path)'", path: path, errno: errno) }
        if retryingOnInterrupt({ flock(fd, LOCK_EX) }) != 0 {
            let code = errno
            close(fd)
            throw failure("cannot lock '\(path)'", path: path, errno: code)
        }
        return fd
    }

    static func unlock(_ fd: Int32) {
        close(fd)
    }

    /// Replaces `path` with `bytes` so that no reader ever sees a partial file and the new content
    /// survives a crash once this returns: write a temporary file beside it, fsync it, rename it
    /// over `path`, fsync the directory. The caller holds the group's lock, so one fixed temporary
    /// name is enough, and a temporary file left by a killed writer is simply overwritten.
    static func replaceDurably(_ path: String, with bytes: [UInt8], temporaryPath: String,
                               directory: String) throws(StoreError) {
        let fd = retryingOnInterrupt { open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        if fd < 0 { throw failure("cannot create '\(temporaryPath)'", path: temporaryPath, errno: errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { write(fd, buffer.baseAddress! + written, buffer.count - written) }
            }
            if count < 0 {
                let code = errno
                close(fd)
                unlink(temporaryPath)
                throw failure("cannot write '\(temporaryPath)'", path: temporaryPath, errno: code)
            }
            written += count
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            unlink(temporaryPath)
            throw failure("cannot fsync '\(temporaryPath)'", path: temporaryPath, errno: code)
        }
        if close(fd) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw failure("cannot close '\(temporaryPath)'", path: temporaryPath, errno: code)
        }
        if rename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw failure("cannot rename '\(temporaryPath)' to '\(path)'", path: path, errno: code)
        }
        try syncDirectory(directory)
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws(StoreError) {
        let fd = retryingOnInterrupt { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if fd < 0 { throw failure("cannot open directory '\(directory)'", path: directory, errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw failure("cannot fsync directory '\(directory)'", path: directory, errno: errno) }
    }

    static func failure(_ message: String, path: String, errno code: Int32) -> StoreError {
        StoreError(.io, "\(message): \(String(cString: strerror(code)))", path: path, errno: code)
    }

    static func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
