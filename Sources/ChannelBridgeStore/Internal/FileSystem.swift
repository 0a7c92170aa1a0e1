import ChannelBridgePlatform

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

    /// The identity of the file `path` names now (a symbolic link's own: it is not followed), or
    /// `nil` when there is none. One `lstat(2)`: a metadata lookup that does not wait on other
    /// processes (no lock, no file content). Whether it is a regular file is checked when it is
    /// opened (`openAndRead`): a path whose identity is not the cached one is always opened.
    static func identity(ofPath path: String) throws(StoreError) -> FileIdentity? {
        switch FileCalls.linkStatus(ofPath: path) {
        case .success(let status): return FileIdentity(status)
        case .failure(let error) where error.code == Errno.ENOENT: return nil
        case .failure(let error): throw failure("cannot stat preferences file '\(path)'", path: path, errno: error.code)
        }
    }

    /// Opens `path` and reads all of it; `nil` when it does not exist. A reader needs no lock:
    /// writers replace the file by `rename`, so an open descriptor sees either the old or the new
    /// file, both complete. The descriptor stays open; the caller closes it.
    ///
    /// Only a regular file of at most `maximumSize` bytes is read: the file is opened without
    /// following a symbolic link and without blocking (a FIFO would wait for a writer for ever),
    /// and `fstat` on the open descriptor says what it is; anything else is `notRegularFile`, and
    /// a larger file (checked before reading, and again while reading, as it may grow) is
    /// `fileTooLarge`. So no file of another process's making costs more than `maximumSize + 1`
    /// bytes of memory or a wait.
    static func openAndRead(_ path: String, what: String, maximumSize: Int) throws(StoreError) -> OpenedFile? {
        let fd = FileCalls.openForReading(path)
        if fd < 0 {
            if -fd == Errno.ENOENT { return nil }
            throw openFailure(what, path: path, errno: -fd)
        }
        do throws(StoreError) {
            let status = try regularStatus(fd, what: what, path: path)
            if status.size > maximumSize {
                throw tooLarge(what, path: path, detail: "\(status.size) bytes", maximumSize: maximumSize)
            }
            // Sized once from fstat; a file that grows meanwhile (a tool writing in place) is read
            // on, up to the bound.
            switch FileCalls.readWhole(fd, expectedSize: status.size, maximumSize: maximumSize) {
            case .success(.bytes(let bytes)):
                return OpenedFile(descriptor: fd, identity: FileIdentity(status), bytes: bytes)
            case .success(.tooLarge):
                throw tooLarge(what, path: path, detail: "it grew while being read", maximumSize: maximumSize)
            case .failure(let error): throw failure("cannot read \(what) '\(path)'", path: path, errno: error.code)
            }
        } catch {
            FileCalls.close(fd)
            throw error
        }
    }

    /// The whole file, or `nil` when it does not exist.
    static func readFile(at path: String, what: String, maximumSize: Int) throws(StoreError) -> [UInt8]? {
        guard let opened = try openAndRead(path, what: what, maximumSize: maximumSize) else { return nil }
        FileCalls.close(opened.descriptor)
        return opened.bytes
    }

    /// `fstat(fd)`, required to be a regular file.
    private static func regularStatus(_ fd: Int32, what: String, path: String) throws(StoreError) -> FileCalls.Status {
        switch FileCalls.status(ofDescriptor: fd) {
        case .success(let status):
            if status.isRegularFile { return status }
            throw notRegular(what, path: path, type: status.typeDescription)
        case .failure(let error):
            throw failure("cannot stat \(what) '\(path)'", path: path, errno: error.code)
        }
    }

    /// A failed `open` without following links: `ELOOP` because `path` is a symbolic link is
    /// `notRegularFile`; anything else is `io`.
    private static func openFailure(_ what: String, path: String, errno code: Int32) -> StoreError {
        if code == Errno.ELOOP, case .success(let status) = FileCalls.linkStatus(ofPath: path), status.isSymbolicLink {
            return notRegular(what, path: path, type: status.typeDescription)
        }
        return failure("cannot open \(what) '\(path)'", path: path, errno: code)
    }

    private static func notRegular(_ what: String, path: String, type: String) -> StoreError {
        StoreError(
            .notRegularFile,
            "\(what) '\(path)' is \(type), not a regular file; the store neither follows nor replaces it",
            path: path)
    }

    private static func tooLarge(_ what: String, path: String, detail: String, maximumSize: Int) -> StoreError {
        StoreError(
            .fileTooLarge, "\(what) '\(path)' is larger than the maximum file size of \(maximumSize) bytes (\(detail))",
            path: path)
    }

    /// Creates `path` and any missing parents (mode 0700: app-group data is the user's own). The
    /// path is split at its '/' bytes, as the kernel splits it: "/" followed by a combining mark is
    /// one `Character` that is not "/".
    static func makeDirectories(_ path: String) throws(StoreError) {
        var prefix = path.utf8.first == UInt8(ascii: "/") ? "/" : ""
        for component in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            prefix += String(Substring(component))
            let code = FileCalls.mkdir(prefix, 0o700)
            if code != 0 && code != Errno.EEXIST {
                throw failure("cannot create directory '\(prefix)'", path: prefix, errno: code)
            }
            prefix += "/"
        }
    }

    /// Opens (creating if needed) the lock file and blocks until this process holds `LOCK_EX` on
    /// it. The lock belongs to the returned descriptor; closing it releases the lock. The group
    /// directory (and its parents) is created only when the lock file's directory is missing, so
    /// a write to an existing group costs no `mkdir` per path component. A `.lock` that is not a
    /// regular file (a symbolic link is not followed; `flock` on a FIFO never returns) is
    /// `notRegularFile`, and is left alone: other processes may be using it.
    static func lockExclusively(_ path: String, creatingDirectory directory: String) throws(StoreError) -> Int32 {
        var fd = FileCalls.openLockFileNoFollow(path)
        if -fd == Errno.ENOENT {
            try makeDirectories(directory)
            fd = FileCalls.openLockFileNoFollow(path)
        }
        if fd < 0 { throw openFailure("lock file", path: path, errno: -fd) }
        do throws(StoreError) {
            _ = try regularStatus(fd, what: "lock file", path: path)
        } catch {
            FileCalls.close(fd)
            throw error
        }
        let code = FileCalls.lockExclusive(fd)
        if code != 0 {
            FileCalls.close(fd)
            throw failure("cannot lock '\(path)'", path: path, errno: code)
        }
        return fd
    }

    static func unlock(_ fd: Int32) {
        FileCalls.close(fd)
    }

    /// The first half of a durable replace (Protocol/store.md, step 6): creates the temporary
    /// file, writes `bytes` to it and `fsync`s it. Returns it, still open, for `install`. The
    /// caller holds the group's lock, so one fixed temporary name is enough and anything already
    /// at that name is stale (left by a killed writer, or planted): it is removed with `unlink`,
    /// which removes a symbolic link itself, never its target, and the exclusive create is tried
    /// once more. The create never follows a link and never opens an existing file, so no file
    /// but the one it creates is ever written.
    static func writeTemporary(_ bytes: [UInt8], at temporaryPath: String) throws(StoreError) -> Int32 {
        var fd = FileCalls.createExclusive(temporaryPath)
        if -fd == Errno.EEXIST {
            let removed = FileCalls.unlink(temporaryPath)
            if removed != 0 && removed != Errno.ENOENT {
                throw failure(
                    "cannot remove the stale temporary file '\(temporaryPath)'", path: temporaryPath, errno: removed)
            }
            fd = FileCalls.createExclusive(temporaryPath)
        }
        if fd < 0 { throw failure("cannot create '\(temporaryPath)'", path: temporaryPath, errno: -fd) }
        let written = FileCalls.writeAll(fd, bytes)
        if written != 0 {
            throw abandon(
                fd, temporaryPath, failure("cannot write '\(temporaryPath)'", path: temporaryPath, errno: written))
        }
        let synced = FileCalls.sync(fd)
        if synced != 0 {
            throw abandon(
                fd, temporaryPath, failure("cannot fsync '\(temporaryPath)'", path: temporaryPath, errno: synced))
        }
        return fd
    }

    /// The second half: renames the temporary file (open as `fd`, written by `writeTemporary`) over
    /// `path` and `fsync`s the directory, so no reader ever sees a partial file and the new
    /// content survives a crash once this returns. Returns the new file's identity, taken after
    /// the rename (a rename changes the file's change time); `fd` stays open, for the caller's
    /// cache. On failure `fd` is closed.
    static func install(
        _ fd: Int32, temporaryPath: String, as path: String,
        directory: String
    ) throws(StoreError) -> FileIdentity {
        let renamed = FileCalls.rename(temporaryPath, to: path)
        if renamed != 0 {
            throw abandon(
                fd, temporaryPath, failure("cannot rename '\(temporaryPath)' to '\(path)'", path: path, errno: renamed))
        }
        do throws(StoreError) {
            try syncDirectory(directory)
        } catch {
            FileCalls.close(fd)
            throw error
        }
        switch FileCalls.status(ofDescriptor: fd) {
        case .success(let status):
            return FileIdentity(status)
        case .failure(let error):
            FileCalls.close(fd)
            throw failure("cannot stat '\(path)'", path: path, errno: error.code)
        }
    }

    /// Gives up a temporary file: closes it and removes it (if it is still there).
    private static func abandon(_ fd: Int32, _ temporaryPath: String, _ error: StoreError) -> StoreError {
        FileCalls.close(fd)
        _ = FileCalls.unlink(temporaryPath)
        return error
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws(StoreError) {
        let fd = FileCalls.openDirectory(directory)
        if fd < 0 { throw failure("cannot open directory '\(directory)'", path: directory, errno: -fd) }
        defer { FileCalls.close(fd) }
        let synced = FileCalls.sync(fd)
        if synced != 0 { throw failure("cannot fsync directory '\(directory)'", path: directory, errno: synced) }
    }

    static func failure(_ message: String, path: String, errno code: Int32) -> StoreError {
        StoreError(.io, "\(message): \(ErrorNumber(code).text)", path: path, errno: code)
    }
}
