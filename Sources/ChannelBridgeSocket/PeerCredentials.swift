/// The credentials of the process at the other end of a Unix socket, as the kernel recorded them
/// when it connected (`SO_PEERCRED`).
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
