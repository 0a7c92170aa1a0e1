import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Files in the group directory that the store did not create, planted by another process of the
/// same user: a symbolic link is never followed, a FIFO or device never opened for good (nothing
/// waits on it), a file over the maximum size never read into memory. Each ends in a typed error
/// naming the file, or (a stale temporary file) is removed and the write goes on.
@Suite struct UntrustedFileTests {
    static let group = "group.untrusted"

    /// A store's group whose directory exists (with a value in it when `seeded`).
    func makeGroup(
        _ dataDirectory: String, seeded: Bool = true, maximumFileSize: Int = AppGroupStore.defaultMaximumFileSize
    )
        async throws -> AppGroupPreferences
    {
        let prefs = try AppGroupStore(dataDirectory: dataDirectory, maximumFileSize: maximumFileSize).group(Self.group)
        if seeded {
            try await prefs.set("before", forKey: "seed")
        } else {
            try FileManager.default.createDirectory(atPath: prefs.directory, withIntermediateDirectories: true)
        }
        return prefs
    }

    /// The same group in a store of its own (no cached document).
    func fresh(
        _ dataDirectory: String, maximumFileSize: Int = AppGroupStore.defaultMaximumFileSize
    ) throws -> AppGroupPreferences {
        try AppGroupStore(dataDirectory: dataDirectory, maximumFileSize: maximumFileSize).group(Self.group)
    }

    func makeFIFO(_ path: String) throws {
        try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path): errno \(errno)")
    }

    func makeSymlink(_ path: String, to target: String) throws {
        try #require(symlink(target, path) == 0, "symlink \(path): errno \(errno)")
    }

    /// The file type `lstat` gives for `path` (`S_IFREG`, `S_IFIFO`, …), or nil when there is none.
    func linkType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// Expects `operation` to fail with `code`, naming `path` and saying `mentions`.
    func expectFailure(
        _ code: StoreError.Code, path: String, mentions: String, _ what: String,
        _ operation: @Sendable () async throws -> Void
    ) async {
        let error = await #expect(throws: StoreError.self, "\(what)") { try await operation() }
        #expect(error?.code == code, "\(what): \(String(describing: error))")
        #expect(error?.path == path, "\(what)")
        #expect(error?.message.contains(path) == true, "\(what): \(String(describing: error))")
        #expect(error?.message.contains(mentions) == true, "\(what): \(String(describing: error))")
    }

    @Test func aTemporaryFileSymlinkedOutsideIsRemovedAndTheOutsideFileIsNeverWritten() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory)
            let outside = dataDirectory + "/outside.txt"
            let original = Data("precious bytes the store must never touch\n".utf8)
            try original.write(to: URL(fileURLWithPath: outside))
            let temporary = prefs.directory + "/.preferences.json.tmp"
            try makeSymlink(temporary, to: outside)

            try await withHangGuard { try await prefs.set("after", forKey: "k") }

            #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == original)
            #expect(linkType(outside) == S_IFREG)
            #expect(linkType(prefs.preferencesFile) == S_IFREG)
            #expect(linkType(temporary) == nil)
            let reopened = try fresh(dataDirectory)
            #expect(try await reopened.value(forKey: "k") == "after")
            #expect(try await reopened.value(forKey: "seed") == "before")
        }
    }

    @Test func aDanglingTemporaryFileSymlinkCreatesNothingAtItsTarget() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory)
            let target = dataDirectory + "/created-through-the-link"
            try makeSymlink(prefs.directory + "/.preferences.json.tmp", to: target)
            try await withHangGuard { try await prefs.set("after", forKey: "k") }
            #expect(linkType(target) == nil)
            #expect(try await fresh(dataDirectory).value(forKey: "k") == "after")
        }
    }

    @Test func aFIFOTemporaryFileIsRemovedAndTheWriteSucceeds() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory)
            let temporary = prefs.directory + "/.preferences.json.tmp"
            try makeFIFO(temporary)
            try await withHangGuard { try await prefs.set("after", forKey: "k") }
            #expect(linkType(temporary) == nil)
            #expect(linkType(prefs.preferencesFile) == S_IFREG)
            #expect(try await fresh(dataDirectory).value(forKey: "k") == "after")
        }
    }

    @Test func aDirectoryAtTheTemporaryPathIsAnIOErrorNamingIt() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory)
            let temporary = prefs.directory + "/.preferences.json.tmp"
            try FileManager.default.createDirectory(atPath: temporary + "/inside", withIntermediateDirectories: true)
            await expectFailure(.io, path: temporary, mentions: "cannot remove the stale temporary file", "set") {
                try await withHangGuard { try await prefs.set("after", forKey: "k") }
            }
            #expect(try await fresh(dataDirectory).value(forKey: "seed") == "before")
        }
    }

    @Test func aFIFOPreferencesFileIsATypedErrorForReadsAndWritesAndIsLeftAlone() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory, seeded: false)
            try makeFIFO(prefs.preferencesFile)
            for (name, store) in [("same store", prefs), ("fresh store", try fresh(dataDirectory))] {
                await expectFailure(
                    .notRegularFile, path: prefs.preferencesFile, mentions: "is a FIFO, not a regular file",
                    "get, \(name)"
                ) {
                    try await withHangGuard { _ = try await store.value(forKey: "k") }
                }
                await expectFailure(
                    .notRegularFile, path: prefs.preferencesFile, mentions: "is a FIFO, not a regular file",
                    "set, \(name)"
                ) {
                    try await withHangGuard { try await store.set("v", forKey: "k") }
                }
            }
            #expect(linkType(prefs.preferencesFile) == S_IFIFO)
        }
    }

    @Test func aFIFOLockFileIsATypedErrorAndIsLeftAlone() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory, seeded: false)
            let lock = prefs.directory + "/.lock"
            try makeFIFO(lock)
            await expectFailure(.notRegularFile, path: lock, mentions: "is a FIFO, not a regular file", "set") {
                try await withHangGuard { try await prefs.set("v", forKey: "k") }
            }
            #expect(linkType(lock) == S_IFIFO)
            #expect(linkType(prefs.preferencesFile) == nil)
        }
    }

    @Test func aSymlinkedLockFileIsNotFollowed() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory, seeded: false)
            let lock = prefs.directory + "/.lock"
            let target = dataDirectory + "/lock-target"
            try makeSymlink(lock, to: target)
            await expectFailure(.notRegularFile, path: lock, mentions: "is a symbolic link, not a regular file", "set")
            {
                try await withHangGuard { try await prefs.set("v", forKey: "k") }
            }
            #expect(linkType(target) == nil)
        }
    }

    @Test func aPreferencesFileSymlinkedToDevZeroIsATypedErrorWithoutReadingIt() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory, seeded: false)
            try makeSymlink(prefs.preferencesFile, to: "/dev/zero")
            await expectFailure(
                .notRegularFile, path: prefs.preferencesFile, mentions: "is a symbolic link, not a regular file",
                "get"
            ) {
                try await withHangGuard { _ = try await prefs.value(forKey: "k") }
            }
            await expectFailure(
                .notRegularFile, path: prefs.preferencesFile, mentions: "is a symbolic link, not a regular file",
                "set"
            ) {
                try await withHangGuard { try await prefs.set("v", forKey: "k") }
            }
            #expect(linkType(prefs.preferencesFile) == S_IFLNK)
        }
    }

    @Test func aPreferencesFileSymlinkedToAValidFileIsNotFollowedNorReplaced() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory)
            let outside = dataDirectory + "/outside.json"
            try FileManager.default.moveItem(atPath: prefs.preferencesFile, toPath: outside)
            let original = try Data(contentsOf: URL(fileURLWithPath: outside))
            try makeSymlink(prefs.preferencesFile, to: outside)
            // The same store had the document cached: the `lstat` sees another file and refuses it.
            await expectFailure(.notRegularFile, path: prefs.preferencesFile, mentions: "is a symbolic link", "get") {
                _ = try await prefs.value(forKey: "seed")
            }
            await expectFailure(.notRegularFile, path: prefs.preferencesFile, mentions: "is a symbolic link", "set") {
                try await prefs.set("after", forKey: "k")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == original)
            #expect(linkType(prefs.preferencesFile) == S_IFLNK)
        }
    }

    @Test func symlinkedDataAndGroupDirectoriesAreFollowed() async throws {
        try await TestDirectory.withPath { root in
            let real = root + "/real"
            try FileManager.default.createDirectory(
                atPath: real + "/app-groups/elsewhere", withIntermediateDirectories: true)
            try makeSymlink(root + "/data", to: real)
            try makeSymlink(real + "/app-groups/" + Self.group, to: "elsewhere")
            let prefs = try AppGroupStore(dataDirectory: root + "/data").group(Self.group)
            try await prefs.set("v", forKey: "k")
            #expect(linkType(real + "/app-groups/elsewhere/preferences.json") == S_IFREG)
            #expect(try await AppGroupStore(dataDirectory: root + "/data").group(Self.group).value(forKey: "k") == "v")
        }
    }

    @Test func aFileOverTheMaximumSizeIsATypedErrorAndOneAtItIsRead() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let document = #"{"version": 1, "values": {"k": "v"}}"#
            let maximum = document.utf8.count + 8
            let prefs = try await makeGroup(dataDirectory, seeded: false, maximumFileSize: maximum)
            // Exactly the maximum: padded with spaces, still the same document.
            let atMaximum = document + String(repeating: " ", count: maximum - document.utf8.count)
            try Data(atMaximum.utf8).write(to: URL(fileURLWithPath: prefs.preferencesFile))
            #expect(try await fresh(dataDirectory, maximumFileSize: maximum).value(forKey: "k") == "v")
            // One byte more.
            try Data((atMaximum + " ").utf8).write(to: URL(fileURLWithPath: prefs.preferencesFile))
            for (name, store) in [
                ("same store", prefs), ("fresh store", try fresh(dataDirectory, maximumFileSize: maximum)),
            ] {
                await expectFailure(
                    .fileTooLarge, path: prefs.preferencesFile,
                    mentions: "larger than the maximum file size of \(maximum) bytes",
                    "get, \(name)"
                ) {
                    _ = try await store.value(forKey: "k")
                }
                await expectFailure(
                    .fileTooLarge, path: prefs.preferencesFile,
                    mentions: "larger than the maximum file size of \(maximum) bytes",
                    "set, \(name)"
                ) {
                    try await store.set("w", forKey: "k")
                }
            }
        }
    }

    @Test func aWriteThatWouldPassTheMaximumSizeWritesNothing() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try await makeGroup(dataDirectory, seeded: false, maximumFileSize: 1_024)
            try await prefs.set("small", forKey: "k")
            let before = try Data(contentsOf: URL(fileURLWithPath: prefs.preferencesFile))
            await expectFailure(
                .fileTooLarge, path: prefs.preferencesFile, mentions: "larger than the maximum file size of 1024 bytes",
                "set"
            ) {
                try await prefs.set(.string(String(repeating: "x", count: 2_000)), forKey: "big")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: prefs.preferencesFile)) == before)
            #expect(try await prefs.value(forKey: "k") == "small")
            #expect(try await prefs.value(forKey: "big") == nil)
        }
    }
}
