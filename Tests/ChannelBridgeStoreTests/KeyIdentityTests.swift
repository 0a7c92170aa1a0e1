import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing

/// Keys and group names are told apart by their code units, never by Unicode canonical
/// equivalence (Protocol/store.md, "Keys and group names"): `"caf\u{E9}"` and `"cafe\u{301}"`,
/// one `String` to Swift's `==`, are two keys and two groups.
@Suite struct KeyIdentityTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// Keys as bytes, so that the comparison cannot be canonical equivalence.
    static func keyBytes(_ entries: [PreferenceEntry]) -> [[UInt8]] {
        entries.map { Array($0.key.utf8) }
    }

    static func keyBytes(_ changes: [StoreChange]) -> [[UInt8]] {
        changes.map { Array($0.key.utf8) }
    }

    @Test(arguments: StoreKind.allCases)
    func bothSpellingsAreTwoKeysWithTheirOwnValues(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(.int32(1), forKey: Self.composed)
            try await store.set(.int32(2), forKey: Self.decomposed)
            #expect(try await store.value(forKey: Self.composed) == .int32(1))
            #expect(try await store.value(forKey: Self.decomposed) == .int32(2))
            let all = try await store.allValues()
            #expect(Self.keyBytes(all) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])
            #expect(all.map(\.value) == [.int32(1), .int32(2)])
            try await store.update(key: Self.decomposed) { _ in .int32(3) }
            #expect(try await store.value(forKey: Self.composed) == .int32(1))
            #expect(try await store.take(key: Self.composed) == .int32(1))
            #expect(try await store.value(forKey: Self.decomposed) == .int32(3))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func removingOneSpellingLeavesTheOther(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(.string("composed"), forKey: Self.composed)
            try await store.set(.string("decomposed"), forKey: Self.decomposed)
            try await store.remove(Self.decomposed)
            #expect(try await store.value(forKey: Self.decomposed) == nil)
            #expect(try await store.value(forKey: Self.composed) == .string("composed"))
            #expect(Self.keyBytes(try await store.allValues()) == [Array(Self.composed.utf8)])
        }
    }

    /// The stream is read only after the writes, so a stream that keeps one change per key
    /// (the file store's) holds both changes waiting at once: merged keys would lose one.
    @Test(arguments: StoreKind.allCases)
    func aChangeOfOneSpellingIsReportedAsThatKeyAlone(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let stream = try await store.changes()
            try await store.set(.int32(1), forKey: Self.composed)
            try await store.set(.int32(2), forKey: Self.decomposed)
            try await store.set(.int32(3), forKey: "end")
            let recorder = ChangeRecorder(stream)
            defer { recorder.stop() }
            let changes = try await recorder.changes.first(3)
            #expect(
                Self.keyBytes(changes) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8), Array("end".utf8)])
            #expect(changes.map(\.value) == [.int32(1), .int32(2), .int32(3)])
            #expect(changes[0] != changes[1] && changes[0] != StoreChange(key: Self.decomposed, value: .int32(1)))
        }
    }

    @Test func aFileHoldingBothSpellingsReadsAsTwoKeysAndSurvivesARewrite() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let group = "group.keys"
        try FileManager.default.createDirectory(atPath: directory.group(group), withIntermediateDirectories: true)
        // One key as raw UTF-8, the other escaped: both are read as the code units they spell.
        let text = "{\"version\": 1, \"values\": {\"caf\u{E9}\": \"raw\", \"cafe\\u0301\": \"escaped\"}}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.preferencesFile(group)))

        let prefs = try AppGroupStore(dataDirectory: directory.data).group(group)
        #expect(try await prefs.value(forKey: Self.composed) == .string("raw"))
        #expect(try await prefs.value(forKey: Self.decomposed) == .string("escaped"))
        #expect(Self.keyBytes(try await prefs.allValues()) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])

        try await prefs.set(.string("rewritten"), forKey: Self.decomposed)
        let reopened = try AppGroupStore(dataDirectory: directory.data).group(group)
        let all = try await reopened.allValues()
        #expect(Self.keyBytes(all) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])
        #expect(all.map(\.value) == [.string("raw"), .string("rewritten")])
    }

    @Test func onlyTheSameCodeUnitsTwiceAreADuplicateKey() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let group = "group.keys"
        try FileManager.default.createDirectory(atPath: directory.group(group), withIntermediateDirectories: true)
        // "\u00e9" escaped and é as raw UTF-8 are one key: escapes are decoded before comparing.
        let text = "{\"version\": 1, \"values\": {\"caf\u{E9}\": \"one\", \"caf\\u00e9\": \"two\"}}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.preferencesFile(group)))
        let prefs = try AppGroupStore(dataDirectory: directory.data).group(group)
        let error = try await #require(throws: StoreError.self) { try await prefs.allValues() }
        #expect(error.code == .corruptFile)
        #expect(error.message.contains("twice"))
    }

    @Test func bothSpellingsOfAGroupNameAreTwoGroupsAndTwoDirectories() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = AppGroupStore(dataDirectory: directory.data)
        let composed = try store.group("grp\u{E9}")
        let decomposed = try store.group("grpe\u{301}")
        try await composed.set(.int32(1), forKey: "k")
        try await decomposed.set(.int32(2), forKey: "k")
        #expect(try await composed.value(forKey: "k") == .int32(1))
        #expect(try await decomposed.value(forKey: "k") == .int32(2))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.data + "/app-groups")
        #expect(Set(names.map { Array($0.utf8) }) == [Array("grp\u{E9}".utf8), Array("grpe\u{301}".utf8)])

        let memory = InMemoryAppGroupStore()
        #expect(try memory.group("grp\u{E9}") !== memory.group("grpe\u{301}"))
        #expect(try memory.group("grp\u{E9}") === memory.group("grp\u{E9}"))
    }

    /// The data directory is created component by component, split at its '/' bytes.
    @Test func aDataDirectoryWithACombiningMarkAfterASlashIsCreated() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let data = directory.path + "/new/\u{301}data"
        let prefs = try AppGroupStore(dataDirectory: data).group("group.keys")
        try await prefs.set(.int32(1), forKey: "k")
        #expect(try await AppGroupStore(dataDirectory: data).group("group.keys").value(forKey: "k") == .int32(1))
        #expect(FileManager.default.fileExists(atPath: data + "/app-groups/group.keys/preferences.json"))
    }

    @Test func aSlashFollowedByACombiningMarkIsStillASlash() {
        // "/\u{301}" is one Character that is not "/"; the name still holds the byte '/'.
        for name in ["a/\u{301}b", "../\u{301}x"] {
            let error = #expect(throws: StoreError.self) { try AppGroupStore.validate(groupName: name) }
            #expect(error?.code == .invalidGroupName)
        }
    }
}
