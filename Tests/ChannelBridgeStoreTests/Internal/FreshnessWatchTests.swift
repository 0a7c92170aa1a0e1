@testable import ChannelBridgeStore
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The freshness watch that lets a cached read skip its `stat`: its epoch must move for
/// every change a `stat` of `preferences.json` would see, and only then does a read trust the
/// cached document without looking at the path.
@Suite struct FreshnessWatchTests {
    /// A group directory holding a `preferences.json` of 14 bytes.
    func withGroupDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cb-fresh-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("{\"version\": 1}".utf8).write(to: URL(fileURLWithPath: directory + "/preferences.json"))
        try body(directory)
    }

    /// Changes to `preferences.json` that a `stat` sees (its inode, size, times or existence).
    static let changes: [(String, @Sendable (String) throws -> Void)] = [
        (
            "rewritten in place, same size",
            { directory in
                let handle = try #require(FileHandle(forWritingAtPath: directory + "/preferences.json"))
                try handle.write(contentsOf: Data("{\"version\": 2}".utf8))
                try handle.close()
            }
        ),
        (
            "appended to",
            { directory in
                let handle = try #require(FileHandle(forWritingAtPath: directory + "/preferences.json"))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(" ".utf8))
                try handle.close()
            }
        ),
        ("truncated", { directory in #expect(truncate(directory + "/preferences.json", 3) == 0) }),
        ("mode changed", { directory in #expect(chmod(directory + "/preferences.json", 0o644) == 0) }),
        ("times set", { directory in #expect(utimes(directory + "/preferences.json", nil) == 0) }),
        (
            "replaced by rename",
            { directory in
                try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/.preferences.json.tmp"))
                #expect(rename(directory + "/.preferences.json.tmp", directory + "/preferences.json") == 0)
            }
        ),
        ("moved away", { directory in #expect(rename(directory + "/preferences.json", directory + "/old.json") == 0) }),
        ("deleted", { directory in #expect(unlink(directory + "/preferences.json") == 0) }),
        (
            "deleted and created again",
            { directory in
                #expect(unlink(directory + "/preferences.json") == 0)
                try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/preferences.json"))
            }
        ),
        (
            "hard link made under the name",
            { directory in
                #expect(rename(directory + "/preferences.json", directory + "/elsewhere.json") == 0)
                #expect(link(directory + "/elsewhere.json", directory + "/preferences.json") == 0)
            }
        ),
    ]

    @Test(arguments: changes.indices)
    func theEpochMovesForEveryChangeAStatSees(index: Int) throws {
        let (name, change) = Self.changes[index]
        try withGroupDirectory { directory in
            let freshness = FreshnessWatch()
            let watch = try #require(freshness.watch(directory))
            defer { freshness.unwatch(watch) }
            let before = try #require(freshness.epoch(requiring: watch))
            #expect(freshness.epoch(requiring: watch) == before, "no change yet (\(name))")
            try change(directory)
            let after = try #require(freshness.epoch())
            #expect(after != before, "\(name)")
            #expect(freshness.epoch() == after, "the epoch holds after \(name)")
        }
    }

    @Test func writesToOtherNamesInTheDirectoryLeaveTheEpoch() throws {
        // Two fresh directories: a watch that counts other names moves the epoch in both, while
        // a stray event from outside this test (whose source is not known) would not hit both.
        // The failure names every event an independent inotify descriptor saw.
        var seen: [String] = []
        for attempt in 1...2 {
            var moved = false
            try withGroupDirectory { directory in
                let freshness = FreshnessWatch()
                let watch = try #require(freshness.watch(directory))
                defer { freshness.unwatch(watch) }
                let observer = try EventObserver(directory)
                defer { observer.close() }
                let before = try #require(freshness.epoch())
                try Data().write(to: URL(fileURLWithPath: directory + "/.lock"))
                try Data("{\"version\": 1, \"values\": {}}".utf8).write(
                    to: URL(fileURLWithPath: directory + "/.preferences.json.tmp"))
                try FileManager.default.createDirectory(
                    atPath: directory + "/container", withIntermediateDirectories: false)
                #expect(unlink(directory + "/.preferences.json.tmp") == 0)
                moved = freshness.epoch() != before
                seen.append("attempt \(attempt): " + observer.events().joined(separator: ", "))
            }
            if !moved { return }
        }
        Issue.record("the epoch moved in both directories; events seen: \(seen.joined(separator: "; "))")
    }

    @Test func onlyThePreferencesFileOrTheDirectoryItselfMoveTheEpoch() {
        let names = [
            ".lock": false, ".preferences.json.tmp": false, "container": false, "preferences.jsonx": false,
            "preferences.jso": false, "preferences.json": true, "": true,
        ]
        for (name, changes) in names {
            var bytes: [UInt8] = []
            let padded = name.isEmpty ? [] : Array(name.utf8) + [UInt8](repeating: 0, count: 16 - name.utf8.count % 16)
            for field in [UInt32(1), 0x0000_0100 /* IN_CREATE */, 0, UInt32(padded.count)] {
                withUnsafeBytes(of: field.littleEndian) { bytes += $0 }
            }
            bytes += padded
            var users: [Int32: Int] = [1: 1]
            let changed = bytes.withUnsafeBytes { FreshnessWatch.absorb($0, users: &users).changed }
            #expect(changed == changes, "\(name.debugDescription)")
        }
    }

    /// An inotify descriptor of the test's own on a directory, to name the events a failure saw.
    struct EventObserver {
        let descriptor: Int32

        init(_ directory: String) throws {
            descriptor = Inotify.start(flags: 0o4_000)
            try #require(descriptor >= 0, "inotify_init1: errno \(-descriptor)")
            #expect(Inotify.addWatch(descriptor, path: directory, mask: FreshnessWatch.watchMask) >= 0)
        }

        func events() -> [String] {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            var names: [String] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { Inotify.readAvailable(descriptor, into: $0) }
                guard count > 0 else { return names }
                Inotify.forEachEvent(in: buffer[0..<count]) { _, mask, name in
                    names.append(
                        "\(String(decoding: name, as: UTF8.self).debugDescription) 0x\(String(mask, radix: 16))")
                }
            }
        }

        func close() { FileCalls.close(descriptor) }
    }

    @Test(arguments: ["moved", "deleted"])
    func aDirectoryMovedAwayOrDeletedIsNoLongerWatched(how: String) throws {
        try withGroupDirectory { directory in
            let freshness = FreshnessWatch()
            let watch = try #require(freshness.watch(directory))
            let before = try #require(freshness.epoch(requiring: watch))
            if how == "moved" {
                #expect(rename(directory, directory + ".moved") == 0)
                defer { try? FileManager.default.removeItem(atPath: directory + ".moved") }
                #expect(freshness.epoch(requiring: watch) == nil)
            } else {
                try FileManager.default.removeItem(atPath: directory)
                #expect(freshness.epoch(requiring: watch) == nil)
            }
            // Every cached document is doubted, not only this group's.
            #expect(try #require(freshness.epoch()) != before)
            freshness.unwatch(watch)  // already forgotten: nothing to give back
        }
    }

    @Test func aDirectoryIsWatchedUntilItsLastUserGivesItBack() throws {
        try withGroupDirectory { directory in
            let freshness = FreshnessWatch()
            let first = try #require(freshness.watch(directory))
            let second = try #require(freshness.watch(directory))
            #expect(first == second)
            freshness.unwatch(first)
            var epoch = try #require(freshness.epoch())
            #expect(utimes(directory + "/preferences.json", nil) == 0)
            #expect(try #require(freshness.epoch(requiring: second)) != epoch)
            freshness.unwatch(second)
            epoch = try #require(freshness.epoch())
            #expect(utimes(directory + "/preferences.json", nil) == 0)
            #expect(freshness.epoch() == epoch)
        }
    }

    @Test func withoutInotifyThereIsNoWatchAndNoEpoch() throws {
        try withGroupDirectory { directory in
            let freshness = FreshnessWatch(start: { _ in -24 /* EMFILE */ })
            #expect(freshness.watch(directory) == nil)
            #expect(freshness.epoch() == nil)
        }
    }

    // MARK: Reads through the watch

    /// A store whose engine uses `freshness`, on a group with `"key"` set to `"aaaa"` and read once
    /// (which takes the `stat` and notes the epoch).
    func withCachedGroup(
        _ freshness: FreshnessWatch,
        _ body: (_ dataDirectory: String, AppGroupPreferences) async throws -> Void
    ) async throws {
        try await TestDirectory.withPath { dataDirectory in
            let files = GroupFiles(directory: dataDirectory + "/app-groups/group.test")
            let prefs = AppGroupPreferences(
                appGroup: "group.test",
                engine: GroupEngine(files: files, threadName: "test", freshness: freshness))
            try await prefs.set(.string("aaaa"), forKey: "key")
            #expect(try await prefs.value(forKey: "key") == .string("aaaa"))
            try await body(dataDirectory, prefs)
        }
    }

    @Test func aReadTrustedThroughTheWatchLooksUpNoPath() async throws {
        try await withCachedGroup(FreshnessWatch()) { dataDirectory, prefs in
            guard case .known(.string("aaaa")?) = try prefs.cachedValue(forKey: "key") else {
                Issue.record("the cached read did not answer at once")
                return
            }
            // Renaming the data directory raises no event in the group directory, and the path
            // no longer names the file: only a read that takes no `stat` still answers from the
            // cache (the limit Protocol/store.md states for such readers).
            #expect(rename(dataDirectory, dataDirectory + ".moved") == 0)
            defer { #expect(rename(dataDirectory + ".moved", dataDirectory) == 0) }
            guard case .known(.string("aaaa")?) = try prefs.cachedValue(forKey: "key") else {
                Issue.record("the read did not come from the cache")
                return
            }
        }
    }

    @Test func withoutInotifyEveryCachedReadTakesTheStat() async throws {
        try await withCachedGroup(FreshnessWatch(start: { _ in -24 })) { dataDirectory, prefs in
            guard case .known(.string("aaaa")?) = try prefs.cachedValue(forKey: "key") else {
                Issue.record("the cached read did not answer at once")
                return
            }
            #expect(rename(dataDirectory, dataDirectory + ".moved") == 0)
            defer { #expect(rename(dataDirectory + ".moved", dataDirectory) == 0) }
            guard case .unknown = try prefs.cachedValue(forKey: "key") else {
                Issue.record("a read without the watch answered without looking at the file")
                return
            }
        }
    }

    @Test func aToolRewritingTheFileInPlaceIsSeenByTheNextRead() async throws {
        try await withCachedGroup(FreshnessWatch()) { _, prefs in
            guard case .known = try prefs.cachedValue(forKey: "key") else {
                Issue.record("the cached read did not answer at once")
                return
            }
            // Same size, same inode: only the contents (and times) change.
            let path = prefs.preferencesFile
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(text.replacingOccurrences(of: "aaaa", with: "bbbb").utf8))
            try handle.close()
            if case .known(let value) = try prefs.cachedValue(forKey: "key") {
                Issue.record("a read after the rewrite answered from the cache: \(String(describing: value))")
            }
            #expect(try await prefs.value(forKey: "key") == .string("bbbb"))
            guard case .known(.string("bbbb")?) = try prefs.cachedValue(forKey: "key") else {
                Issue.record("the file read again is not cached")
                return
            }
        }
    }

    @Test func aWriteAcknowledgedByAnotherProcessIsSeenByTheNextRead() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group("group.test")
            for round in 0..<20 {
                #expect(try await prefs.value(forKey: "key") == (round == 0 ? nil : .int32(Int32(round - 1))))
                let writer = try StorePeer(
                    "set", dataDirectory: dataDirectory, group: "group.test",
                    ["--key", "key", "--value", "{\"int32\":\(round)}"])
                try await writer.waitForSuccess()
                #expect(try await prefs.value(forKey: "key") == .int32(Int32(round)), "round \(round)")
            }
        }
    }
}
