import ChannelBridgePlatform

extension SocketPath {
    /// Throws `SocketError.unsafeDirectory` unless the directory holding the socket at `path` is
    /// one that only this user (or root) controls. The host checks before it creates anything in
    /// that directory (after creating the directory if missing); a client checks before it
    /// connects. One rule for both sides, as `lstat` reports the directory itself:
    ///
    /// 1. it is a directory, not a symbolic link;
    /// 2. its owner is the effective uid, or root (uid 0) unless it is the default directory;
    /// 3. it is not group- or world-writable (`mode & 0o022 == 0`), unless it is not the default
    ///    directory and has the sticky bit (like `/tmp`: others may add files but not remove or
    ///    replace ours).
    ///
    /// The *default directory* is the one holding `defaultPath(environment:)`
    /// (`$XDG_RUNTIME_DIR/channelbridge` or `/tmp/channelbridge-<uid>`): the host creates it with
    /// mode 0700, so anything else found there was made by someone else.
    ///
    /// A directory that does not exist passes: nothing can be found or created in it (a client's
    /// connect fails with `notFound`, the host's lock file cannot be created). Any other `lstat`
    /// failure is `systemCall`.
    public static func checkDirectory(
        of path: String, environment: [String: String]? = nil,
        uid: UInt32 = effectiveUserID
    ) throws(SocketError) {
        guard !path.isEmpty else { return }
        let directory = directory(of: path)
        let isDefault = directory == Self.directory(of: defaultPath(environment: environment, uid: uid))
        let advice =
            isDefault
            ? "remove it or set XDG_RUNTIME_DIR"
            : "remove it or use a socket path in a directory only this user can write to"
        let info: FileCalls.Status
        switch FileCalls.linkStatus(ofPath: directory) {
        case .success(let status):
            info = status
        case .failure(let error) where error.code == Errno.ENOENT:
            return
        case .failure(let error):
            throw SocketError(.systemCall, "lstat \(directory) failed: \(error.text)", path: path, errno: error.code)
        }
        guard info.isDirectory else {
            throw SocketError(
                .unsafeDirectory,
                "the socket directory \(directory) is \(info.typeDescription), not a directory; \(advice)",
                path: path)
        }
        let octal = String(info.permissions, radix: 8)
        let mode = "0" + String(repeating: "0", count: max(0, 3 - octal.count)) + octal
        var problems: [String] = []
        if info.owner != uid && (isDefault || info.owner != 0) {
            problems.append(
                isDefault
                    ? "is not owned by this user (uid \(uid))"
                    : "is owned by neither this user (uid \(uid)) nor root")
        }
        if info.permissions & 0o022 != 0 && (isDefault || info.permissions & 0o1000 == 0) {
            problems.append("is writable by others" + (isDefault ? "" : " without the sticky bit"))
        }
        guard problems.isEmpty else {
            throw SocketError(
                .unsafeDirectory,
                "the socket directory \(directory) (owner uid \(info.owner), mode \(mode)) "
                    + problems.joined(separator: ", and ") + "; \(advice)",
                path: path)
        }
    }

    /// The directory part of `path`: up to its last `/` with trailing slashes dropped, `/` for a
    /// file in the root, `.` for a bare name. Trailing slashes are dropped because `lstat` follows
    /// a symbolic link named with one.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        var directory = path[..<slash]
        while directory.hasSuffix("/") { directory = directory.dropLast() }
        return directory.isEmpty ? "/" : String(directory)
    }
}
