/// Why the extension host could not start: a usage error (exit status 64) or a failure to start
/// (exit status 1). The message says what to fix and names the option, file or rule concerned.
public struct HostError: Error, Sendable, Hashable, CustomStringConvertible {
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        package var description: String { name }

        /// The command line is wrong: an unknown option, a missing or malformed value.
        package static let usage = Code("usage")
        /// The input items (`--items`, `--file`) cannot be read or are malformed.
        package static let invalidInput = Code("invalidInput")
        /// The `--info-plist` file cannot be read, has no usable activation rule, or its rule
        /// does not allow the input items.
        package static let activationRule = Code("activationRule")
        /// A `--plugin` name is not a known plugin.
        package static let unknownPlugin = Code("unknownPlugin")
        /// The socket could not be bound (another host is serving there, a bad path, ...).
        package static let socket = Code("socket")
        /// The store could not be used (copying files into the container, writing the share key).
        package static let store = Code("store")
        /// The process could not get a resource it needs to start (a thread).
        package static let resources = Code("resources")
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// 64 (`EX_USAGE`) for usage errors, 1 for every other failure to start.
    package var exitStatus: Int32 { code == .usage ? 64 : 1 }

    /// The message, which names the option, file or rule concerned.
    public var description: String { message }
}
