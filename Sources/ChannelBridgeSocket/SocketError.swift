/// A socket could not be bound, connected or used.
public struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// Another host is serving on the path; it is never taken over.
        public static let addressInUse = Code("addressInUse")
        /// The path is too long for a Unix socket address, or empty.
        public static let invalidPath = Code("invalidPath")
        /// Something other than a socket exists at the path; it is left alone.
        public static let notASocket = Code("notASocket")
        /// No socket file exists at the path (no host has started there).
        public static let notFound = Code("notFound")
        /// A socket file exists but nothing accepts on it (a stale file).
        public static let connectionRefused = Code("connectionRefused")
        /// The directory holding the socket is not safe to use: a symbolic link or not a
        /// directory, owned by another user, or writable by others (`SocketPath.checkDirectory`).
        public static let unsafeDirectory = Code("unsafeDirectory")
        /// The peer's credentials could not be read.
        public static let credentials = Code("credentials")
        /// The process at the other end is not accepted by this side's peer policy.
        public static let peerNotAccepted = Code("peerNotAccepted")
        /// The host did not accept the connection, or did not answer, within the deadline
        /// (`SocketConnection.Options.connectTimeout`, or a call's timeout): it may be stopped or
        /// overloaded. See `SocketError.timedOut(path:after:)`.
        public static let timedOut = Code("timedOut")
        /// Another system call failed; `errno` says why.
        public static let systemCall = Code("systemCall")
    }

    public var code: Code
    public var message: String
    /// The socket path concerned.
    public var path: String?
    /// The `errno` of the failed system call, when there was one.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let path { text += " (\(path))" }
        return text
    }
}

extension SocketError {
    /// `timedOut` for the host at `path`, which gave no answer within `timeout`; the message is
    /// meant for the user as it stands ("no answer from the host at PATH within 5 s: it may be
    /// stopped or overloaded").
    public static func timedOut(path: String, after timeout: Duration) -> SocketError {
        SocketError(
            .timedOut,
            "no answer from the host at \(path) within \(SocketConnection.seconds(timeout)) s:"
                + " it may be stopped or overloaded", path: path)
    }
}
