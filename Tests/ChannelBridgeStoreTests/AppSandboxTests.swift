import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing

/// An app's sandbox: which store each `UserDefaults` suite is, where its directories are, and the
/// blocking operations that synchronous Foundation code uses.
@Suite struct AppSandboxTests {
    static let group = "group.com.example.app"

    func sandbox(_ dataDirectory: String) throws -> AppSandbox {
        try AppSandbox(
            bundleIdentifier: "com.example.app.share", entitledAppGroups: [Self.group],
            groups: AppGroupStore(dataDirectory: dataDirectory))
    }

    @Test func eachSuiteIsTheGroupsStoreOrOneOfTheAppsOwn() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let sandbox = try sandbox(dataDirectory)
            let home = dataDirectory + "/apps/com.example.app.share"
            #expect(sandbox.home == home)
            #expect(
                try sandbox.preferences(forSuite: nil)?.preferencesFile
                    == home + "/Library/Preferences/com.example.app.share/preferences.json")
            #expect(
                try sandbox.preferences(forSuite: Self.group)?.preferencesFile
                    == dataDirectory + "/app-groups/\(Self.group)/preferences.json")
            // A group the app is not entitled to is a suite of its own, as on iOS.
            #expect(
                try sandbox.preferences(forSuite: "group.other")?.preferencesFile
                    == home + "/Library/Preferences/group.other/preferences.json")
            #expect(try sandbox.preferences(forSuite: "com.example.app.share") == nil)
            #expect(try sandbox.preferences(forSuite: "NSGlobalDomain") == nil)
            #expect(throws: StoreError.self) { try sandbox.preferences(forSuite: "a/b") }
            #expect(throws: StoreError.self) {
                try AppSandbox(bundleIdentifier: "..", entitledAppGroups: [], groups: AppGroupStore(dataDirectory: "/"))
            }
        }
    }

    @Test func aContainerIsGivenForEntitledGroupsOnly() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let sandbox = try sandbox(dataDirectory)
            let container = try sandbox.containerDirectory(forGroup: Self.group)
            #expect(container == dataDirectory + "/app-groups/\(Self.group)/container")
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: container ?? "", isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
            #expect(try sandbox.containerDirectory(forGroup: "group.other") == nil)
        }
    }

    @Test func theDirectoriesAreMadeAndNamedForFoundation() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let sandbox = try sandbox(dataDirectory)
            let environment = try sandbox.prepareDirectories()
            let home = sandbox.home
            #expect(environment.map(\.name) == ["TMPDIR", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"])
            #expect(
                environment.map(\.value) == [
                    home + "/tmp", home + "/Library/Caches", home + "/Library/Application Support",
                    home + "/Library/Preferences",
                ])
            for directory in environment.map(\.value) + [home + "/Documents", home + "/Downloads"] {
                #expect(FileManager.default.fileExists(atPath: directory), "\(directory)")
            }
            let userDirs = try String(contentsOfFile: home + "/Library/Preferences/user-dirs.dirs", encoding: .utf8)
            #expect(userDirs == "XDG_DOCUMENTS_DIR=\(home)/Documents\nXDG_DOWNLOAD_DIR=\(home)/Downloads\n")
            // Again: the same, nothing refused.
            #expect(try sandbox.prepareDirectories().map(\.value) == environment.map(\.value))
        }
    }

    @Test func blockingWritesAreDurableAndSeenByTheAsynchronousAPIAndAnotherStore() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            let written = await onThread { () -> Result<[PreferenceEntry], StoreError> in
                Result { () throws(StoreError) -> [PreferenceEntry] in
                    try prefs.blockingSet(.string("one"), forKey: "a")
                    try prefs.blockingSet(.list([.int32(1), .int64(2)]), forKey: "b")
                    try prefs.blockingSet(nil, forKey: "a")
                    try prefs.blockingSet(.bool(true), forKey: "c")
                    return try prefs.blockingAllValues()
                }
            }
            let expected = [
                PreferenceEntry(key: "b", value: .list([.int32(1), .int64(2)])),
                PreferenceEntry(key: "c", value: .bool(true)),
            ]
            #expect(try written.get() == expected)
            #expect(try await prefs.allValues() == expected)
            let other = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            #expect(try await other.allValues() == expected)
            try await other.set(.float64(1.5), forKey: "d")
            let read = await onThread { Result { () throws(StoreError) in try prefs.blockingValue(forKey: "d") } }
            #expect(try read.get() == .float64(1.5))
            let cleared = await onThread {
                Result { () throws(StoreError) -> [PreferenceEntry] in
                    try prefs.blockingRemoveAll()
                    return try prefs.blockingAllValues()
                }
            }
            #expect(try cleared.get() == [])
            #expect(try await other.allValues() == [])
        }
    }

    @Test func aBlockingWriteThatFailsSaysWhy() async throws {
        try await TestDirectory.withPath { dataDirectory in
            // A file where the group's directory would be: the write cannot make its directory.
            _ = FileManager.default.createFile(atPath: dataDirectory + "/app-groups", contents: Data())
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            let outcome = await onThread {
                Result { () throws(StoreError) in try prefs.blockingSet(.int32(1), forKey: "k") }
            }
            #expect {
                try outcome.get()
            } throws: { error in
                (error as? StoreError)?.message
                    == "cannot open lock file '\(dataDirectory)/app-groups/\(Self.group)/.lock': Not a directory"
            }
        }
    }
}
