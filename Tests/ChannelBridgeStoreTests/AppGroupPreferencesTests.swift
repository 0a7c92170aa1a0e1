import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The file store's own guarantees: the normative layout, atomic replacement, and refusing a file
/// it cannot read instead of replacing it.
@Suite struct AppGroupPreferencesTests {
    static let group = "group.com.example.app"

    func contents(of directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test func valuesSurviveIntoAFreshStoreAndAreWrittenInTheNormativeLayout() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            for (key, value) in sampleValues { try await prefs.set(value, forKey: key) }

            let reopened = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            #expect(
                try await reopened.allValues() == sampleValues.map { PreferenceEntry(key: $0.key, value: $0.value) })

            let path = dataDirectory + "/app-groups/\(Self.group)/preferences.json"
            #expect(prefs.preferencesFile == path)
            let json = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(json["version"] == .number("1"))
            guard case .object(let members)? = json["values"] else {
                Issue.record("no values object in \(json.text)")
                return
            }
            #expect(members.map(\.key) == sampleValues.map(\.key))
            for (member, sample) in zip(members, sampleValues) {
                #expect(member.value == TypedValueNotation.json(for: sample.value), "key \(sample.key)")
            }
            // The widths are spelled out in the file, as typed value notation says.
            #expect(json["values"]?["int32"]?.text == #"{"int32":-5}"#)
            #expect(json["values"]?["int64.small"]?.text == #"{"int64":"5"}"#)
            #expect(json["values"]?["float64.-0"]?.text == #"{"float64":"-0.0"}"#)
            #expect(json["values"]?["stringList"]?.text == #"["a","b c",""]"#)
            #expect(json["values"]?["bytes"]?.text == #"{"uint8list":"00ff107f"}"#)
        }
    }

    @Test func writesLeaveOnlyThePreferencesAndLockFiles() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            for index in 0..<20 { try await prefs.set(.int32(Int32(index)), forKey: "k\(index % 5)") }
            try await prefs.update(key: "k0") { _ in .string("updated") }
            _ = try await prefs.take(key: "k1")
            try await prefs.remove("k2")
            #expect(try contents(of: prefs.directory) == [".lock", "preferences.json"])
            try await prefs.removeAll()
            #expect(try contents(of: prefs.directory) == [".lock", "preferences.json"])
            #expect(try contents(of: dataDirectory + "/app-groups") == [Self.group])
        }
    }

    @Test func readingAndWritingNothingCreatesNoFile() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            #expect(try await prefs.value(forKey: "k") == nil)
            #expect(try await prefs.allValues() == [])
            try await prefs.remove("k")
            #expect(!FileManager.default.fileExists(atPath: prefs.preferencesFile))
        }
    }

    @Test func aHandWrittenVersionOneFileIsReadAndItsUnknownMembersAreKept() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try FileManager.default.createDirectory(atPath: prefs.directory, withIntermediateDirectories: true)
            let text =
                #"{"extra": {"kept": [1, 2]}, "values": {"ShareKey": "{\"text\":[\"hi\"]}", "n": {"int64": 12}}, "version": 1}"#
            try Data(text.utf8).write(to: URL(fileURLWithPath: prefs.preferencesFile))

            #expect(
                try await prefs.allValues() == [
                    PreferenceEntry(key: "ShareKey", value: .string(#"{"text":["hi"]}"#)),
                    PreferenceEntry(key: "n", value: .int64(12)),
                ])
            try await prefs.set(.bool(true), forKey: "added")
            let json = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: prefs.preferencesFile)))
            #expect(json["extra"]?.text == #"{"kept":[1,2]}"#)
            #expect(json["changeLog"]?.text == #"{"seq":1,"commits":[{"seq":1,"keys":["added"]}]}"#)
        }
    }

    @Test func theChangeLogCountsWritesAndNamesTheirKeys() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try await prefs.set("x", forKey: "a")
            try await prefs.set("y", forKey: "b")
            try await prefs.set("y", forKey: "b")
            try await prefs.removeAll()
            let json = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: prefs.preferencesFile)))
            #expect(
                json["changeLog"]?.text
                    == #"{"seq":4,"commits":[{"seq":1,"keys":["a"]},{"seq":2,"keys":["b"]},{"seq":3,"keys":["b"]},{"seq":4,"keys":["a","b"]}]}"#
            )
        }
    }

    /// A change log whose `seq` is past 2^53 is malformed, so a write starts a new one instead of
    /// overflowing the count (a file with `UInt64.max` stopped the writer at its next commit).
    @Test(arguments: ["18446744073709551615", "9007199254740993"])
    func aChangeLogCountPastTwoToTheFiftyThirdStartsANewLog(seq: String) async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try FileManager.default.createDirectory(atPath: prefs.directory, withIntermediateDirectories: true)
            let text = #"{"version": 1, "values": {"n": {"int32": 1}}, "changeLog": {"seq": \#(seq), "commits": []}}"#
            try Data(text.utf8).write(to: URL(fileURLWithPath: prefs.preferencesFile))
            try await prefs.set(.int32(2), forKey: "n")
            let json = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: prefs.preferencesFile)))
            #expect(json["changeLog"]?.text == #"{"seq":1,"commits":[{"seq":1,"keys":["n"]}]}"#)
            #expect(try await prefs.value(forKey: "n") == .int32(2))
        }
    }

    static let corruptFiles: [(name: String, text: String, code: StoreError.Code, mentions: String)] = [
        ("not JSON", #"{"version": 1, "values": {"#, .corruptFile, "not valid JSON"),
        ("empty", "", .corruptFile, "not valid JSON"),
        ("not an object", "[1]", .corruptFile, "not a JSON object"),
        ("no version", #"{"values": {}}"#, .corruptFile, "version"),
        ("no values", #"{"version": 1}"#, .corruptFile, "values"),
        ("values not an object", #"{"version": 1, "values": []}"#, .corruptFile, "values"),
        ("bad notation", #"{"version": 1, "values": {"k": {"int33": 1}}}"#, .corruptFile, "key 'k'"),
        ("int32 out of range", #"{"version": 1, "values": {"k": {"int32": 2147483648}}}"#, .corruptFile, "key 'k'"),
        ("duplicate key", #"{"version": 1, "values": {"k": true, "k": false}}"#, .corruptFile, "'k' twice"),
        ("future version", #"{"version": 2, "values": {}}"#, .unsupportedVersion, "version 2"),
    ]

    @Test(arguments: corruptFiles.indices)
    func aFileThatCannotBeReadIsAnErrorNamingItAndIsNeverReplaced(index: Int) async throws {
        let corrupt = Self.corruptFiles[index]
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try FileManager.default.createDirectory(atPath: prefs.directory, withIntermediateDirectories: true)
            let url = URL(fileURLWithPath: prefs.preferencesFile)
            try Data(corrupt.text.utf8).write(to: url)

            let operations: [(String, @Sendable () async throws -> Void)] = [
                ("value", { _ = try await prefs.value(forKey: "k") }),
                ("allValues", { _ = try await prefs.allValues() }),
                ("set", { try await prefs.set(.int32(1), forKey: "k") }),
                ("remove", { try await prefs.remove("k") }),
                ("removeAll", { try await prefs.removeAll() }),
                ("take", { _ = try await prefs.take(key: "k") }),
                ("update", { try await prefs.update(key: "k") { _ in .int32(1) } }),
                ("changes", { _ = try await prefs.changes() }),
            ]
            for (name, operation) in operations {
                let error = await #expect(throws: StoreError.self, "\(corrupt.name): \(name)") { try await operation() }
                #expect(error?.code == corrupt.code, "\(corrupt.name): \(name)")
                #expect(error?.path == prefs.preferencesFile)
                #expect(error?.message.contains("'\(prefs.preferencesFile)'") == true, "\(error?.message ?? "")")
                #expect(error?.message.contains(corrupt.mentions) == true, "\(error?.message ?? "")")
            }
            #expect(try Data(contentsOf: url) == Data(corrupt.text.utf8))
            #expect(try contents(of: prefs.directory) == [".lock", "preferences.json"])
        }
    }

    @Test func aPreferencesPathThatIsNotAFileIsAnErrorNamingIt() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try FileManager.default.createDirectory(atPath: prefs.preferencesFile, withIntermediateDirectories: true)
            let error = await #expect(throws: StoreError.self) { try await prefs.set(.int32(1), forKey: "k") }
            #expect(error?.code == .notRegularFile)
            #expect(error?.message.contains("is a directory, not a regular file") == true)
            #expect(error?.path == prefs.preferencesFile)
            #expect(error?.message.contains(prefs.preferencesFile) == true)
        }
    }

    @Test(arguments: ["", ".", "..", "a/b", "/abs", "group/", "nul\u{0}byte", String(repeating: "g", count: 256)])
    func groupNamesThatAreNotOneDirectoryNameAreRefused(name: String) throws {
        let store = AppGroupStore(dataDirectory: "/nonexistent")
        let error = #expect(throws: StoreError.self) { try store.group(name) }
        #expect(error?.code == .invalidGroupName)
        #expect(error?.message.contains(name.debugDescription) == true)
        #expect(throws: StoreError.self) { try InMemoryAppGroupStore().group(name) }
    }

    @Test(arguments: [
        "group.com.example.app", "...", "..hidden", "with space", "ünïcode", String(repeating: "g", count: 255),
    ])
    func ordinaryGroupNamesAreAccepted(name: String) throws {
        let prefs = try AppGroupStore(dataDirectory: "/data").group(name)
        #expect(prefs.directory == "/data/app-groups/\(name)")
        #expect(prefs.appGroup == name)
    }

    @Test func theContainerDirectoryIsCreatedInsideTheGroup() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory + "/").group(Self.group)
            let container = try await prefs.containerDirectory()
            #expect(container == dataDirectory + "/app-groups/\(Self.group)/container")
            var isDirectory: ObjCBool = false
            #expect(
                FileManager.default.fileExists(atPath: container, isDirectory: &isDirectory) && isDirectory.boolValue)
            #expect(try await prefs.containerDirectory() == container)
        }
    }

    @Test func deletingTheGroupReportsItsKeysRemovedAndEndsTheStream() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try await prefs.set(.int32(1), forKey: "a")
            let recorder = ChangeRecorder(try await prefs.changes())
            defer { recorder.stop() }
            try FileManager.default.removeItem(atPath: prefs.directory)
            #expect(try await recorder.changes.waitForEnd() == [StoreChange(key: "a", value: nil)])
        }
    }

    @Test func aWriteAfterTheGroupDirectoryWasDeletedCreatesItAgain() async throws {
        // A commit creates the directory only when opening the lock file finds it missing; the
        // cached document of the deleted file is not carried into the new one.
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try await prefs.set(.int32(1), forKey: "a")
            try FileManager.default.removeItem(atPath: dataDirectory + "/app-groups")
            try await prefs.set(.int32(2), forKey: "b")
            #expect(try await prefs.value(forKey: "a") == nil)
            #expect(try await prefs.value(forKey: "b") == .int32(2))
            let fresh = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            #expect(try await fresh.allValues() == [PreferenceEntry(key: "b", value: .int32(2))])
            let attributes = try FileManager.default.attributesOfItem(atPath: prefs.directory)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0)
        }
    }

    @Test func theDefaultDataDirectoryFollowsXDG() {
        #expect(
            AppGroupStore.defaultDataDirectory(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"])
                == "/x/data/channelbridge")
        #expect(
            AppGroupStore.defaultDataDirectory(environment: ["HOME": "/home/u"])
                == "/home/u/.local/share/channelbridge")
        // The XDG base directory spec ignores a relative XDG_DATA_HOME.
        #expect(
            AppGroupStore.defaultDataDirectory(environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/u"])
                == "/home/u/.local/share/channelbridge")
    }

    @Test func inMemoryGroupsAreSharedByName() async throws {
        let groups = InMemoryAppGroupStore()
        try await groups.group("a").set("shared", forKey: "k")
        #expect(try await groups.preferences(forAppGroup: "a").value(forKey: "k") == "shared")
        #expect(try await groups.group("b").value(forKey: "k") == nil)
    }
}
