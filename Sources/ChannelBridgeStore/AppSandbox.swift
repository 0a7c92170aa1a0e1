import ChannelBridgeCodec
import ChannelBridgePlatform

/// An app's sandbox, as iOS gives one to an app extension, for the process that hosts it: a
/// bundle identifier, the app groups it is entitled to, its own preferences and its own
/// directories, all under the host's data directory (Protocol/flutter-embedder.md, section 8).
///
/// A host executable with plugins of its own makes one and installs it for the process
/// (`ExtensionHostCommand.main(plugins:)`), as iOS does before an extension's code runs; another
/// process of the same data directory — a containing app — installs its own. The `Flutter`
/// module's `UserDefaults` and `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`
/// read it:
///
/// ```swift
/// // A containing app, sharing group.com.example.app with its extension's host:
/// AppSandbox.install(try AppSandbox(
///     bundleIdentifier: "com.example.app", entitledAppGroups: ["group.com.example.app"],
///     groups: AppGroupStore(dataDirectory: AppGroupStore.defaultDataDirectory())))
/// let shared = UserDefaults(suiteName: "group.com.example.app")   // in a file importing Flutter
/// ```
///
/// Layout:
///
/// ```text
/// <dataDirectory>/app-groups/<group>/          an entitled group: preferences and container
/// <dataDirectory>/apps/<bundle identifier>/    the app's home
///     Library/Preferences/<suite>/             its own suites (the standard one: the bundle identifier)
///     Library/Caches/  Library/Application Support/  Documents/  Downloads/  tmp/
/// ```
public final class AppSandbox: Sendable {
    /// The app's bundle identifier: the name of its home and of its standard preferences suite
    /// (what `Bundle.main.bundleIdentifier` should say: on Linux, from an `Info.plist` beside the
    /// executable).
    public let bundleIdentifier: String
    /// The groups whose preferences and container are shared (`com.apple.security.application-groups`).
    public let entitledAppGroups: [String]
    /// The app groups' store, the same object the host's plugins use.
    package let groups: AppGroupStore
    /// `<dataDirectory>/apps/<bundle identifier>`.
    package let home: String
    /// The app's own suites, in `Library/Preferences`.
    private let ownSuites: AppGroupStore

    /// - Throws: `StoreError` `invalidGroupName` when `bundleIdentifier` is not one directory name.
    public init(bundleIdentifier: String, entitledAppGroups: [String], groups: AppGroupStore) throws(StoreError) {
        try AppGroupStore.validate(directoryName: bundleIdentifier, what: "bundle identifier")
        self.bundleIdentifier = bundleIdentifier
        self.entitledAppGroups = entitledAppGroups
        self.groups = groups
        var base = groups.dataDirectory
        while base.hasSuffix("/") { base.removeLast() }
        home = base + "/apps/" + bundleIdentifier
        ownSuites = AppGroupStore(
            dataDirectory: home + "/Library", groupsDirectoryName: "Preferences",
            maximumFileSize: groups.maximumFileSize)
    }

    package var libraryDirectory: String { home + "/Library" }
    package var preferencesDirectory: String { home + "/Library/Preferences" }
    package var cachesDirectory: String { home + "/Library/Caches" }
    package var applicationSupportDirectory: String { home + "/Library/Application Support" }
    package var documentsDirectory: String { home + "/Documents" }
    package var downloadsDirectory: String { home + "/Downloads" }
    package var temporaryDirectory: String { home + "/tmp" }

    /// The suite iOS names `NSGlobalDomain`; like the bundle identifier, not a suite of its own.
    package static let globalDomain = "NSGlobalDomain"

    /// The store behind `UserDefaults(suiteName:)`: an entitled app group's preferences (shared
    /// with every process of the data directory), else one of the app's own suites (`nil`: the
    /// standard one). `nil` for the names iOS refuses as a suite: the bundle identifier and
    /// `NSGlobalDomain`.
    ///
    /// - Throws: `StoreError` `invalidGroupName` for a name that is not one directory name.
    package func preferences(forSuite suiteName: String?) throws(StoreError) -> AppGroupPreferences? {
        guard let suiteName else { return try ownSuites.group(bundleIdentifier) }
        if suiteName == bundleIdentifier || suiteName == Self.globalDomain { return nil }
        if entitledAppGroups.contains(suiteName) { return try groups.group(suiteName) }
        return try ownSuites.group(suiteName)
    }

    /// The shared container of `appGroup` (created if missing), or `nil` when the app is not
    /// entitled to it, as `containerURL(forSecurityApplicationGroupIdentifier:)` answers.
    package func containerDirectory(forGroup appGroup: String) throws(StoreError) -> String? {
        guard entitledAppGroups.contains(appGroup) else { return nil }
        return try groups.group(appGroup).blockingContainerDirectory()
    }

    /// Creates the app's directories and returns the environment variables through which
    /// Foundation on Linux finds them: `TMPDIR` (the temporary directory), `XDG_CACHE_HOME`
    /// (caches), `XDG_DATA_HOME` (application support) and `XDG_CONFIG_HOME`, whose
    /// `user-dirs.dirs` names the documents and downloads directories. The home directory itself
    /// (`NSHomeDirectory()`) comes from the password database and is not redirected.
    package func prepareDirectories() throws(StoreError) -> [(name: String, value: String)] {
        for directory in [
            preferencesDirectory, cachesDirectory, applicationSupportDirectory, documentsDirectory,
            downloadsDirectory, temporaryDirectory,
        ] {
            try FileSystem.makeDirectories(directory)
        }
        let userDirs = preferencesDirectory + "/user-dirs.dirs"
        // Unquoted: Foundation takes a quoted value as relative to the home directory.
        let text = "XDG_DOCUMENTS_DIR=" + documentsDirectory + "\nXDG_DOWNLOAD_DIR=" + downloadsDirectory + "\n"
        let fd = try FileSystem.writeTemporary(Array(text.utf8), at: userDirs + ".tmp")
        _ = try FileSystem.install(fd, temporaryPath: userDirs + ".tmp", as: userDirs, directory: preferencesDirectory)
        FileCalls.close(fd)
        return [
            ("TMPDIR", temporaryDirectory), ("XDG_CACHE_HOME", cachesDirectory),
            ("XDG_DATA_HOME", applicationSupportDirectory), ("XDG_CONFIG_HOME", preferencesDirectory),
        ]
    }

    private static let installed = LockedValue<AppSandbox?>(nil)

    /// The process's sandbox, if its executable installed one.
    public static var current: AppSandbox? { installed.withLock { $0 } }

    /// Makes `sandbox` the process's (replacing any other; a host installs one at start-up).
    public static func install(_ sandbox: AppSandbox?) {
        installed.withLock { $0 = sandbox }
    }
}
