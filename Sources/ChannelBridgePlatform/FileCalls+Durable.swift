import Glibc

/// The file calls of a durable replace (write a temporary file, `fsync`, `rename`, `fsync` the
/// directory), a whole-file read and an exclusive `flock`, for the app-group store. As in the rest
/// of `FileCalls`: EINTR is retried, and failures come back as error numbers (a descriptor call
/// returns the descriptor, or minus the error number), never through `errno`, so the caller needs
/// no C library of its own.
extension FileCalls {
    /// `stat(path)`: the status, or the error number (`ENOENT` when there is no such file).
    package static func status(ofPath path: String) -> Result<Status, ErrorNumber> {
        var info = stat()
        if stat(path, &info) != 0 { return .failure(ErrorNumber(errno)) }
        return .success(Status(info))
    }

    /// `lstat(path)`: the status of `path` itself (a symbolic link's own, not its target's), or the
    /// error number (`ENOENT` when there is no such file).
    package static func linkStatus(ofPath path: String) -> Result<Status, ErrorNumber> {
        var info = stat()
        if lstat(path, &info) != 0 { return .failure(ErrorNumber(errno)) }
        return .success(Status(info))
    }

    /// `fstat(fd)`: the status, or the error number.
    package static func status(ofDescriptor fd: Int32) -> Result<Status, ErrorNumber> {
        var info = stat()
        if fstat(fd, &info) != 0 { return .failure(ErrorNumber(errno)) }
        return .success(Status(info))
    }

    /// Opens `path` read-only (close-on-exec) without following a symbolic link (`ELOOP` when
    /// `path` is one) and without blocking (a FIFO opens at once instead of waiting for a writer):
    /// the descriptor, or minus the error number. The caller checks with `fstat` what it opened.
    package static func openForReading(_ path: String) -> Int32 {
        descriptorOrError { open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) }
    }

    /// Opens (creating, mode 0600) `path` for reading and writing, close-on-exec, without
    /// following a symbolic link (`ELOOP`) and without blocking on a FIFO: the descriptor, or minus
    /// the error number. The caller checks with `fstat` what it opened before it `flock`s it.
    package static func openLockFileNoFollow(_ path: String) -> Int32 {
        descriptorOrError { open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0o600) }
    }

    /// Opens the directory `path` for `fsync`: the descriptor, or minus the error number.
    package static func openDirectory(_ path: String) -> Int32 {
        descriptorOrError { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    /// Creates `path` (mode 0600) for writing, close-on-exec; fails with `EEXIST` when anything
    /// is there already, a symbolic link included (`O_EXCL` never follows one, so nothing outside
    /// is ever opened): the descriptor, or minus the error number.
    package static func createExclusive(_ path: String) -> Int32 {
        descriptorOrError { open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
    }

    /// What `readWhole` found.
    package enum WholeRead: Sendable, Equatable {
        case bytes([UInt8])
        /// The file holds more than the maximum (it may have grown since its size was taken).
        case tooLarge
    }

    /// Reads the whole file open as `fd` from offset 0, starting with room for `expectedSize`
    /// bytes and growing if the file is longer, but never holding more than `maximumSize + 1`
    /// bytes: the bytes, `.tooLarge` once more than `maximumSize` were read, or the error number.
    package static func readWhole(_ fd: Int32, expectedSize: Int, maximumSize: Int) -> Result<WholeRead, ErrorNumber> {
        let limit = max(maximumSize, 0) + 1
        var bytes = [UInt8](repeating: 0, count: min(max(expectedSize, 0) + 1, limit))
        var count = 0
        while true {
            if count == bytes.count {
                if count == limit { return .success(.tooLarge) }
                // An array, not `repeatElement`: the generic append of a `Repeated` instantiates its
                // metadata on whichever threads read at once (README "Sanitizers").
                bytes.append(contentsOf: [UInt8](repeating: 0, count: min(max(4096, count), limit - count)))
            }
            let got = bytes.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { pread(fd, buffer.baseAddress! + count, buffer.count - count, off_t(count)) }
            }
            if got < 0 { return .failure(ErrorNumber(errno)) }
            if got == 0 { break }
            count += got
        }
        if count > maximumSize { return .success(.tooLarge) }
        bytes.removeLast(bytes.count - count)
        return .success(.bytes(bytes))
    }

    /// Writes all of `bytes` to `fd`: 0, or the error number.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { write(fd, buffer.baseAddress! + written, buffer.count - written) }
            }
            if count < 0 { return errno }
            written += count
        }
        return 0
    }

    /// `fsync(fd)`: 0, or the error number.
    package static func sync(_ fd: Int32) -> Int32 {
        fsync(fd) == 0 ? 0 : errno
    }

    /// `rename(from, to)`: 0, or the error number.
    package static func rename(_ from: String, to: String) -> Int32 {
        Glibc.rename(from, to) == 0 ? 0 : errno
    }

    /// Blocks until this process holds `LOCK_EX` on `fd`: 0, or the error number.
    package static func lockExclusive(_ fd: Int32) -> Int32 {
        retryingOnInterrupt { flock(fd, LOCK_EX) } == 0 ? 0 : errno
    }

    /// Closes `fd`.
    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    private static func descriptorOrError(_ call: () -> Int32) -> Int32 {
        let fd = retryingOnInterrupt(call)
        return fd >= 0 ? fd : -errno
    }

    /// Runs `call` again while it fails with EINTR.
    package static func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// An error number from a failed call (`errno`'s value), with the C library's text for it.
package struct ErrorNumber: Error, Sendable, Equatable {
    package let code: Int32

    package init(_ code: Int32) {
        self.code = code
    }

    /// `strerror`'s text.
    package var text: String { String(cString: strerror(code)) }
}
