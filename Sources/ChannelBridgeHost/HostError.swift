/// Why the extension host could not start: a usage error (exit status 64) or a failure to start
/// (exit status 1). The message says what to fix and names the option, file or rule concerned.
public struct HostError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The command line is wrong: an unknown option, a missing or malformed value.
        public static let usage = Code("usage")
        /// The input items (`--items`, `--file`) cannot be read or are malformed.
        public static let invalidInput = Code("invalidInput")
        /// The `--info-plist` file cannot be read, has no usable activation rule, or its rule
        /// does not allow the input items.
        public static let activationRule = Code("activationRule")
        /// A `--plugin` name is not a known plugin.
        public static let unknownPlugin = Code("unknownPlugin")
        /// The socket could not be bound (another host is serving there, a bad path, ...).
        public static let socket = Code("socket")
        /// The store could not be used (copying files into the container, writing the share key).
        public static let store = Code("store")
        /// The process could not get a resource it needs to start (a thread).
        public static let resources = Code("resources")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// 64 (`EX_USAGE`) for usage errors, 1 for every other failure to start.
    public var exitStatus: Int32 { code == .usage ? 64 : 1 }

    public var description: String { message }
}
