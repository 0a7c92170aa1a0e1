/// Which end of a session a side is, as announced in its HELLO. A client talks only to a host.
public enum PeerRole: UInt8, Sendable, Hashable, CustomStringConvertible {
    case client = 0
    case host = 1

    /// The role the other end of a session must have.
    package var peer: PeerRole { self == .client ? .host : .client }

    public var description: String { self == .client ? "client" : "host" }
}
