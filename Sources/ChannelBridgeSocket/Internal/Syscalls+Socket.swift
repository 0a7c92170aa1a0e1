import ChannelBridgePlatform

/// The platform's socket calls with this module's error and credential types.
extension Syscalls {
    static func failure(
        _ call: String, code: SocketError.Code = .systemCall, path: String? = nil,
        errno value: Int32 = Syscalls.lastError
    ) -> SocketError {
        SocketError(code, "\(call) failed: \(errorText(value))", path: path, errno: value)
    }

    static func streamSocket(nonBlocking: Bool = false) throws(SocketError) -> Int32 {
        let fd = newStreamSocket(nonBlocking: nonBlocking)
        guard fd >= 0 else { throw failure("socket", errno: -fd) }
        return fd
    }

    static func credentials(of fd: Int32) -> PeerCredentials? {
        peerCredentials(fd).map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}
