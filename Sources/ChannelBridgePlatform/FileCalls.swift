import Glibc

/// Path and lock-file calls for the socket listener: errors as error numbers, EINTR retried.
package enum FileCalls {
    /// What `lstat`/`stat` says about a path.
    package struct Status: Sendable {
        package let device: UInt64
        package let inode: UInt64
        package let size: Int
        /// The modification time, as seconds and nanoseconds since the epoch.
        package let modified: (seconds: Int, nanoseconds: Int)
        /// The status change time (a rename changes it), as seconds and nanoseconds.
        package let changed: (seconds: Int, nanoseconds: Int)
        fileprivate let mode: UInt32
        /// The owner's uid.
        package let owner: UInt32
        /// The permission bits, set-id and sticky bits included (`st_mode & 07777`).
        package var permissions: UInt32 { mode & 0o7777 }
        package var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
        package var isSocket: Bool { mode & S_IFMT == S_IFSOCK }
        package var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
        package var isSymbolicLink: Bool { mode & S_IFMT == S_IFLNK }
        /// The file's type in words, for error messages: "a regular file", "a FIFO", "a symbolic
        /// link", "a character device", …
        package var typeDescription: String {
            switch mode & S_IFMT {
            case S_IFREG: "a regular file"
            case S_IFDIR: "a directory"
            case S_IFLNK: "a symbolic link"
            case S_IFIFO: "a FIFO"
            case S_IFSOCK: "a socket"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            default: "a file of unknown type"
            }
        }

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            modified = (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
            changed = (Int(info.st_ctim.tv_sec), Int(info.st_ctim.tv_nsec))
            mode = UInt32(info.st_mode)
            owner = UInt32(info.st_uid)
        }
    }

    /// `lstat(path)` (the link itself), or nil.
    package static func linkStatus(_ path: String) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// `stat(path)` (following links), or nil.
    package static func status(_ path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// 0, or the errno.
    package static func chmod(_ path: String, _ mode: UInt32) -> Int32 {
        Glibc.chmod(path, mode_t(mode)) == 0 ? 0 : errno
    }

    /// 0, or the errno (`EEXIST` when something is there already).
    package static func mkdir(_ path: String, _ mode: UInt32) -> Int32 {
        Glibc.mkdir(path, mode_t(mode)) == 0 ? 0 : errno
    }

    /// 0, or the errno.
    package static func unlink(_ path: String) -> Int32 {
        Glibc.unlink(path) == 0 ? 0 : errno
    }

    /// Opens (creating, mode 0600, close-on-exec) `path` for reading and writing: the descriptor,
    /// or the negated errno.
    package static func openLockFile(_ path: String) -> Int32 {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        return fd >= 0 ? fd : -errno
    }

    /// Takes an exclusive `flock` on `fd` without waiting: 0, or the errno (`EWOULDBLOCK` when
    /// another descriptor holds it).
    package static func tryLockExclusive(_ fd: Int32) -> Int32 {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code != EINTR { return code }
        }
        return 0
    }
}
