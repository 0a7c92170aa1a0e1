/// A preference store operation failed.
///
/// Errors about a file name the file in `message` and in `path`, because the file is shared with
/// other processes and its path is what a person needs to find and repair it.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible without breaking callers that switch on known codes.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The app group name cannot be a directory name (empty, `.`, `..`, a `/` or NUL, too long).
        public static let invalidGroupName = Code("invalidGroupName")
        /// The preferences file exists but is not a valid preferences document. It is left untouched.
        public static let corruptFile = Code("corruptFile")
        /// The preferences file declares a format version this store does not know. It is left untouched.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A value cannot be stored (nested deeper than the store can read back).
        public static let invalidValue = Code("invalidValue")
        /// A system call on a store file or directory failed (permissions, disk full, …).
        public static let io = Code("io")
        /// A file in the group directory (`preferences.json`, `.lock`) is not a regular file: a
        /// symbolic link, FIFO, device, socket or directory. The store never follows, reads or
        /// replaces it; it is left untouched.
        public static let notRegularFile = Code("notRegularFile")
        /// `preferences.json` is larger than the store's maximum file size
        /// (`AppGroupStore.maximumFileSize`), or a write would make it so. It is left untouched.
        public static let fileTooLarge = Code("fileTooLarge")
        /// A write's task was cancelled while the write was still waiting for the group's lock: it
        /// was withdrawn and nothing was written. (A write already being committed is finished.)
        public static let cancelled = Code("cancelled")
        /// The key holds a value of another type than the operation needs (`appendToList` on a key
        /// that holds something other than a list). Nothing was written.
        public static let wrongType = Code("wrongType")
    }

    public var code: Code
    public var message: String
    /// The file or directory the error is about, when there is one.
    public var path: String?
    /// The `errno` of the failed system call, for `.io`.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(code): \(message)"
    }
}
