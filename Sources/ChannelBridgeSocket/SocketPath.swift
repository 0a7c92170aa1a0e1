import ChannelBridgePlatform

/// Where the host listens unless told otherwise.
public enum SocketPath {
    /// The name of the socket file inside its directory.
    public static let fileName = "extension-host.sock"

    /// `$XDG_RUNTIME_DIR/channelbridge/extension-host.sock`, or
    /// `/tmp/channelbridge-<uid>/extension-host.sock` when `XDG_RUNTIME_DIR` is unset or empty.
    /// Used by the host and the CLI alike.
    public static func defaultPath(environment: [String: String]? = nil, uid: UInt32 = effectiveUserID) -> String {
        let runtimeDirectory = environment.map { $0["XDG_RUNTIME_DIR"] } ?? Syscalls.environment("XDG_RUNTIME_DIR")
        if let runtimeDirectory, !runtimeDirectory.isEmpty {
            let trimmed = runtimeDirectory.hasSuffix("/") ? String(runtimeDirectory.dropLast()) : runtimeDirectory
            return "\(trimmed)/channelbridge/\(fileName)"
        }
        return "/tmp/channelbridge-\(uid)/\(fileName)"
    }

    /// This process's effective uid (a default argument above, so visible to inlined callers).
    @usableFromInline static var effectiveUserID: UInt32 { Syscalls.effectiveUserID }
}
