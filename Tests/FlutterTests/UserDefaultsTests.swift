import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Flutter
import Testing

/// Foundation's `UserDefaults` and `containerURL(forSecurityApplicationGroupIdentifier:)` in a
/// process with an app sandbox: an entitled group's suite is the group's store, the others the
/// app's own, every write durable. (This file imports Flutter and not Foundation, as plugin code
/// must for `UserDefaults` to be this module's.) Serialized: the sandbox is the process's.
@Suite(.serialized) struct UserDefaultsTests {
    static let group = "group.com.example.app"
    static let bundleIdentifier = "com.example.app.share"

    /// Runs `body` on a thread of its own (the store blocks) with a sandbox over a fresh data
    /// directory installed, then removes it.
    func withSandbox<T: Sendable>(
        _ body: @escaping @Sendable (AppSandbox, String) throws -> T
    ) async throws -> T {
        try await TestDirectory.withPath { dataDirectory in
            let sandbox = try AppSandbox(
                bundleIdentifier: Self.bundleIdentifier, entitledAppGroups: [Self.group],
                groups: AppGroupStore(dataDirectory: dataDirectory))
            AppSandbox.install(sandbox)
            defer { AppSandbox.install(nil) }
            return try await onThread { Result { try body(sandbox, dataDirectory) } }.get()
        }
    }

    @Test func aGroupSuiteIsTheGroupsStoreBothWays() async throws {
        let (stored, readBack) = try await withSandbox { sandbox, _ in
            let defaults = try #require(UserDefaults(suiteName: Self.group))
            defaults.set("hello", forKey: "text")
            defaults.set(["first", "second"], forKey: "items")
            defaults.set(42, forKey: "count")
            let group = try sandbox.groups.group(Self.group)
            let stored = try group.blockingAllValues()
            try group.blockingSet(.float64(2.5), forKey: "ratio")
            return (stored, defaults.double(forKey: "ratio"))
        }
        #expect(
            stored == [
                PreferenceEntry(key: "text", value: .string("hello")),
                PreferenceEntry(key: "items", value: .list([.string("first"), .string("second")])),
                PreferenceEntry(key: "count", value: .int64(42)),
            ])
        #expect(readBack == 2.5)
    }

    @Test func aWriteThroughUserDefaultsIsAChangeOfTheStore() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let groups = AppGroupStore(dataDirectory: dataDirectory)
            let sandbox = try AppSandbox(
                bundleIdentifier: Self.bundleIdentifier, entitledAppGroups: [Self.group], groups: groups)
            AppSandbox.install(sandbox)
            defer { AppSandbox.install(nil) }
            let changes = try await groups.group(Self.group).changes()
            await onThread {
                UserDefaults(suiteName: Self.group)?.set("from Foundation", forKey: "text")
                UserDefaults(suiteName: Self.group)?.removeObject(forKey: "text")
            }
            let seen = try await withHangGuard {
                var seen: [StoreChange] = []
                for await change in changes {
                    seen.append(change)
                    if change.value == nil { break }
                }
                return seen
            }
            // A slow consumer may see the key once, with its latest value.
            #expect(
                seen == [
                    StoreChange(key: "text", value: .string("from Foundation")), StoreChange(key: "text", value: nil),
                ]
                    || seen == [StoreChange(key: "text", value: nil)])
        }
    }

    @Test func propertyListValuesReadBackAsFoundationGivesThem() async throws {
        let values = try await withSandbox { _, _ in
            let defaults = try #require(UserDefaults(suiteName: Self.group))
            defaults.set(true, forKey: "bool")
            defaults.set(Int64.max, forKey: "int64")
            defaults.set(1.25, forKey: "double")
            defaults.set(Data([1, 2, 3]), forKey: "data")
            defaults.set(["a": 1, "b": "two"] as [String: Any], forKey: "map")
            defaults.set(URL(fileURLWithPath: "/tmp/x"), forKey: "url")
            defaults.set(Date(timeIntervalSince1970: 10), forKey: "date")
            return [
                "\(defaults.bool(forKey: "bool"))", "\(defaults.object(forKey: "int64").map { "\($0)" } ?? "nil")",
                "\(defaults.integer(forKey: "int64") == Int(Int64.max))", "\(defaults.double(forKey: "double"))",
                "\(defaults.data(forKey: "data").map { Array($0) } ?? [])",
                "\((defaults.dictionary(forKey: "map")?["b"] as? String) ?? "nil")",
                "\(defaults.dictionary(forKey: "map")?["a"] as? Int ?? -1)", defaults.string(forKey: "url") ?? "nil",
                "\(defaults.double(forKey: "date"))", "\(defaults.object(forKey: "missing") == nil)",
            ]
        }
        #expect(
            values == [
                "true", "9223372036854775807", "true", "1.25", "[1, 2, 3]", "two", "1", "/tmp/x", "10.0", "true",
            ])
    }

    /// `set(_: Int, forKey:)`, the overload a typed `Int` picks: an int64, as the codec writes a Swift `Int`.
    @Test func anIntIsStoredAsAnInt64() async throws {
        let stored = try await withSandbox { sandbox, _ in
            let defaults = try #require(UserDefaults(suiteName: Self.group))
            let small: Int = 7
            defaults.set(small, forKey: "small")
            defaults.set(Int.min, forKey: "min")
            return try sandbox.groups.group(Self.group).blockingAllValues()
        }
        #expect(
            stored == [
                PreferenceEntry(key: "small", value: .int64(7)), PreferenceEntry(key: "min", value: .int64(Int64.min)),
            ])
    }

    @Test func theStandardSuiteIsTheAppsOwnAndSurvivesANewStore() async throws {
        let (file, reopened, persistent, refused) = try await withSandbox { sandbox, dataDirectory in
            UserDefaults.standard.set("kept", forKey: "flutter.name")
            UserDefaults.standard.register(defaults: ["flutter.registered": "default"])
            // Another process's view of the same data directory.
            let other = try AppSandbox(
                bundleIdentifier: Self.bundleIdentifier, entitledAppGroups: [Self.group],
                groups: AppGroupStore(dataDirectory: dataDirectory))
            let reopened = try other.preferences(forSuite: nil)?.blockingValue(forKey: "flutter.name")
            let persistent = UserDefaults.standard.persistentDomain(forName: Self.bundleIdentifier)?.keys.sorted()
            let registered = UserDefaults.standard.string(forKey: "flutter.registered")
            #expect(registered == "default")
            return (
                try sandbox.preferences(forSuite: nil)?.preferencesFile, reopened, persistent,
                UserDefaults(suiteName: Self.bundleIdentifier) == nil
                    && UserDefaults(suiteName: "NSGlobalDomain") == nil
            )
        }
        #expect(
            file?.hasSuffix(
                "/apps/\(Self.bundleIdentifier)/Library/Preferences/\(Self.bundleIdentifier)/preferences.json") == true)
        #expect(reopened == .string("kept"))
        #expect(persistent == ["flutter.name"])
        #expect(refused)
    }

    @Test func removingAndClearingReachTheStore() async throws {
        let (afterRemove, afterClear, representation) = try await withSandbox { sandbox, _ in
            let defaults = try #require(UserDefaults(suiteName: Self.group))
            defaults.set(1, forKey: "a")
            defaults.set(2, forKey: "b")
            defaults.removeObject(forKey: "a")
            let group = try sandbox.groups.group(Self.group)
            let afterRemove = try group.blockingAllValues().map(\.key)
            let representation = defaults.dictionaryRepresentation()["b"] as? Int
            #expect(defaults.synchronize())
            defaults.removePersistentDomain(forName: Self.group)
            return (afterRemove, try group.blockingAllValues().map(\.key), representation)
        }
        #expect(afterRemove == ["b"])
        #expect(afterClear == [])
        #expect(representation == 2)
    }

    @Test func aContainerURLIsTheGroupsContainerForEntitledGroupsOnly() async throws {
        let (container, other) = try await withSandbox { _, dataDirectory in
            let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.group)
            #expect(container?.path == dataDirectory + "/app-groups/\(Self.group)/container")
            return (container, FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.other"))
        }
        #expect(container != nil)
        #expect(other == nil)
    }

    /// The library directory is the app's own `Library`, which Linux Foundation does not answer at
    /// all; the other directories are Foundation's answers, which the host points at the sandbox.
    @Test func theLibraryDirectoryIsTheSandboxsOwn() async throws {
        let (library, caches, foundationCaches, dataDirectory) = try await withSandbox { _, dataDirectory in
            (
                NSSearchPathForDirectoriesInDomains(.libraryDirectory, .userDomainMask, true),
                NSSearchPathForDirectoriesInDomains(.cachesDirectory, .userDomainMask, true),
                Foundation.NSSearchPathForDirectoriesInDomains(.cachesDirectory, .userDomainMask, true),
                dataDirectory
            )
        }
        #expect(library == [dataDirectory + "/apps/\(Self.bundleIdentifier)/Library"])
        #expect(caches == foundationCaches)
        AppSandbox.install(nil)
        #expect(
            NSSearchPathForDirectoriesInDomains(.libraryDirectory, .userDomainMask, true)
                == Foundation.NSSearchPathForDirectoriesInDomains(.libraryDirectory, .userDomainMask, true))
    }

    @Test func withoutASandboxItIsFoundationsOwn() async throws {
        AppSandbox.install(nil)
        let (container, value) = await onThread { () -> (URL?, String?) in
            let defaults = UserDefaults(suiteName: "channelbridge.tests.unsandboxed")
            defaults?.set("volatile", forKey: "k")
            let value = defaults?.string(forKey: "k")
            defaults?.removeObject(forKey: "k")
            return (FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.group), value)
        }
        #expect(container == nil)
        #expect(value == "volatile")
    }

    /// A plugin file as `pigeon adapt` leaves one (`Support/AdaptedPluginFile.swift`, which imports
    /// only Flutter): its iOS-only lines run, and its `UserDefaults` suites are the sandbox's.
    @Test func anAdaptedPluginFileKeepsItsSuitesInTheSandbox() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let sandbox = try AppSandbox(
                bundleIdentifier: Self.bundleIdentifier, entitledAppGroups: [Self.group],
                groups: AppGroupStore(dataDirectory: dataDirectory))
            AppSandbox.install(sandbox)
            defer { AppSandbox.install(nil) }
            let session = EngineSession()
            defer { session.close() }
            SuiteCounterPlugin.register(with: try #require(session.engine.registrar(forPlugin: "SuiteCounterPlugin")))
            let codec = StandardMessageCodec()
            let suites: [StandardValue] = [
                .string(Self.group), .string(Self.group), .null, .string("com.example.other"),
            ]
            let replies = try await withHangGuard {
                var replies: [StandardValue?] = []
                for suite in suites {
                    let reply = try await session.client.send(
                        onChannel: SuiteCounterPlugin.channelName, message: try codec.encode(suite))
                    replies.append(try reply.map { try codec.decode($0) })
                }
                return replies
            }
            #expect(
                replies == [
                    .list([.int64(1)]), .list([.int64(2)]), .list([.int64(1)]),
                    .list([.string("Suite Error"), .string("'com.example.other' is not an app group")]),
                ])
            let stored = try await onThread {
                Result { () throws(StoreError) -> [StandardValue?] in
                    [
                        try sandbox.groups.group(Self.group).blockingValue(forKey: "count"),
                        try sandbox.preferences(forSuite: nil)?.blockingValue(forKey: "count"),
                    ]
                }
            }.get()
            // The plugin stores a Swift `Int` (`set(_: Int, forKey:)`): an int64, as the codec writes one.
            #expect(stored == [.int64(2), .int64(1)])
        }
    }
}
