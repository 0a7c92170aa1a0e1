import ChannelBridgeCodec
import ChannelBridgePlatform
public import FoundationEssentials

/// The app-group preference stores under one data directory: each group's preferences, lock and
/// shared container live in `<dataDirectory>/app-groups/<group>/` (layout in Protocol/store.md).
///
/// ```swift
/// let store = AppGroupStore(dataDirectory: AppGroupStore.defaultDataDirectory())
/// let prefs = try store.group("group.com.example.app")
/// let shared = try await prefs.take(key: "ShareKey")   // import and clear in one step
/// ```
public final class AppGroupStore: PreferenceStoreProvider {
    /// The data directory, as given.
    public let dataDirectory: String
    /// This store's state for each group it has been asked for: the cached document, the writes
    /// waiting for the group's lock and the change streams (see `GroupEngine`). Kept for the life
    /// of the store: one entry per group name used, each holding at most one document. Names are
    /// told apart by code units, as the file system tells directory names apart.
    private let engines = LockedValue<[CodeUnitString: GroupEngine]>([:])

    /// The largest `preferences.json` this store reads or writes, in bytes; a larger file is
    /// `fileTooLarge` (never read into memory), and so is a write that would make it larger.
    public let maximumFileSize: Int

    /// `maximumFileSize`'s default: 256 MiB.
    public static let defaultMaximumFileSize = 256 << 20

    /// The directory under `dataDirectory` that holds one directory per group.
    let groupsDirectoryName: String

    /// `maximumFileSize` is clamped to 0 ... 2 GiB - 1, the largest file the store can address.
    public init(dataDirectory: String, maximumFileSize: Int = AppGroupStore.defaultMaximumFileSize) {
        self.dataDirectory = dataDirectory
        self.groupsDirectoryName = "app-groups"
        self.maximumFileSize = min(max(maximumFileSize, 0), StoredDocument.maximumSize)
    }

    /// Stores laid out as app groups' are, one directory per name in `<dataDirectory>/<groupsDirectoryName>/`:
    /// an app's own preference suites (`AppSandbox`).
    package init(
        dataDirectory: String, groupsDirectoryName: String,
        maximumFileSize: Int = AppGroupStore.defaultMaximumFileSize
    ) {
        self.dataDirectory = dataDirectory
        self.groupsDirectoryName = groupsDirectoryName
        self.maximumFileSize = min(max(maximumFileSize, 0), StoredDocument.maximumSize)
    }

    /// `$XDG_DATA_HOME/channelbridge`, else `$HOME/.local/share/channelbridge`.
    public static func defaultDataDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/channelbridge" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? passwordDatabaseHome()
        return home + "/.local/share/channelbridge"
    }

    private static func passwordDatabaseHome() -> String {
        Syscalls.passwordDatabaseHome() ?? "/"
    }

    /// The preferences of `appGroup`. Nothing is created on disk until the first write.
    public func group(_ appGroup: String) throws(StoreError) -> AppGroupPreferences {
        try Self.validate(groupName: appGroup)
        let directory = directory(forGroup: appGroup)
        let engine = engines.withLock { engines in
            if let engine = engines[CodeUnitString(appGroup)] { return engine }
            let engine = GroupEngine(
                files: GroupFiles(directory: directory),
                threadName: "store commit", maximumFileSize: maximumFileSize)
            engines[CodeUnitString(appGroup)] = engine
            return engine
        }
        return AppGroupPreferences(appGroup: appGroup, engine: engine)
    }

    public func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore {
        try group(appGroup)
    }

    /// `<dataDirectory>/app-groups/<group>`, for a name that `validate(groupName:)` accepts.
    public func directory(forGroup appGroup: String) -> String {
        var base = dataDirectory
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + groupsDirectoryName + "/" + appGroup
    }

    /// Accepts exactly the names that are one directory name: not empty, not `.` or `..`, no `/`
    /// or NUL, at most 255 bytes of UTF-8.
    public static func validate(groupName: String) throws(StoreError) {
        try validate(directoryName: groupName, what: "app group name")
    }

    /// `validate(groupName:)` for another kind of name (`what`: "bundle identifier").
    package static func validate(directoryName groupName: String, what: String) throws(StoreError) {
        let problem: String? =
            if groupName.isEmpty {
                "it is empty"
            } else if groupName.utf8.elementsEqual(".".utf8) || groupName.utf8.elementsEqual("..".utf8) {
                "'\(groupName)' is not a directory name"
            }
            // Bytes, not characters: "/" followed by a combining mark is one Character that is not "/".
            else if groupName.utf8.contains(UInt8(ascii: "/")) { "it contains '/'" } else if groupName.utf8.contains(0)
            { "it contains a NUL character" } else if groupName.utf8.count > 255 { "it is longer than 255 bytes" } else
            { nil }
        if let problem {
            throw StoreError(.invalidGroupName, "invalid \(what) \(groupName.debugDescription): \(problem)")
        }
    }
}
