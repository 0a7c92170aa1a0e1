#if canImport(Glibc)
import Glibc
#endif

/// The store's system calls on files and directories. Every function blocks (disk I/O, `flock`,
/// `fsync`), so callers run them on the store's dispatch queues, never on the cooperative pool.
enum FileSystem {
    /// An open file, its identity and its whole content.
    struct OpenedFile {
        /// Open for as long as the caller relies on `identity` (see `FileIdentity`).
        var descriptor: Int32
        var identity: FileIdentity
        var bytes: [UInt8]
    }

    /// The identity of the file `path` names now, or `nil` when there is none. One `stat(2)`: a
    /// metadata lookup that does not wait on other processes (no lock, no file content).
    static func identity(ofPath path: String) throws(StoreError) -> FileIdentity? {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("cannot stat preferences file '\(path)'", path: path, errno: code)
        }
        return FileIdentity(info)
    }

    /// Opens `path` and reads all of it; `nil` when it does not exist. A reader needs no lock:
    /// writers replace the file by `rename`, so an open descriptor sees either the old or the new
    /// file, both complete. The descriptor stays open; the caller closes it.
    static func openAndRead(_ path: String, what: String) throws(StoreError) -> OpenedFile? {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("cannot open \(what) '\(path)'", path: path, errno: code)
        }
        do throws(StoreError) {
            var info = stat()
            if fstat(fd, &info) != 0 { throw failure("cannot stat \(what) '\(path)'", path: path, errno: errno) }
            // Sized once from fstat; a file that grows meanwhile (a tool writing in place) is read on.
            var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
            var count = 0
            while true {
                if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(4096, count))) }
                let got = bytes.withUnsafeMutableBytes { buffer in
                    retryingOnInterrupt { pread(fd, buffer.baseAddress! + count, buffer.count - count, off_t(count)) }
                }
                if got < 0 { throw failure("cannot read \(what) '\(path)'", path: path, errno: errno) }
                if got == 0 { break }
                count += got
            }
            bytes.removeLast(bytes.count - count)
            return OpenedFile(descriptor: fd, identity: FileIdentity(info), bytes: bytes)
        } catch {
            close(fd)
            throw error
        }
    }

    /// The whole file, or `nil` when it does not exist.
    static func readFile(at path: String, what: String) throws(StoreError) -> [UInt8]? {
        guard let opened = try openAndRead(path, what: what) else { return nil }
        close(opened.descriptor)
        return opened.bytes
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
    ///
    /// Returns the new file, still open, with its identity taken after the rename (a rename
    /// changes the file's change time), for the caller's cache.
    static func replaceDurably(_ path: String, with bytes: [UInt8], temporaryPath: String,
                               directory: String) throws(StoreError) -> (descriptor: Int32, identity: FileIdentity) {
        let fd = retryingOnInterrupt { open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        if fd < 0 { throw failure("cannot create '\(temporaryPath)'", path: temporaryPath, errno: errno) }
        func abandon(_ message: String, _ code: Int32, path failedPath: String) -> StoreError {
            close(fd)
            unlink(temporaryPath)
            return failure(message, path: failedPath, errno: code)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { write(fd, buffer.baseAddress! + written, buffer.count - written) }
            }
            if count < 0 { throw abandon("cannot write '\(temporaryPath)'", errno, path: temporaryPath) }
            written += count
        }
        if fsync(fd) != 0 { throw abandon("cannot fsync '\(temporaryPath)'", errno, path: temporaryPath) }
        if rename(temporaryPath, path) != 0 {
            throw abandon("cannot rename '\(temporaryPath)' to '\(path)'", errno, path: path)
        }
        do throws(StoreError) {
            try syncDirectory(directory)
        } catch {
            close(fd)
            throw error
        }
        var info = stat()
        if fstat(fd, &info) != 0 {
            let code = errno
            close(fd)
            throw failure("cannot stat '\(path)'", path: path, errno: code)
        }
        return (fd, FileIdentity(info))
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
