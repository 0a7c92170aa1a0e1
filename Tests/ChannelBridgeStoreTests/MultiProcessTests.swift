import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Several processes on one app group, each a real `channelbridge-store-peer` child. Serialized:
/// each test already runs several processes on a small machine.
@Suite(.serialized) struct MultiProcessTests {
    static let group = "group.com.example.shared"

    func preferences(_ dataDirectory: String) throws -> AppGroupPreferences {
        try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
    }

    /// Starts peers with `--gate` and releases them together once all are ready.
    func startTogether(_ peers: [StorePeer]) async throws {
        for peer in peers { try await peer.waitForLine("ready") }
        for peer in peers { try peer.openGate() }
    }

    @Test func typedValuesWrittenHereReadTheSameInAnotherProcess() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try preferences(dataDirectory)
            for (key, value) in sampleValues { try await prefs.set(value, forKey: key) }
            for (key, value) in sampleValues {
                let reader = try StorePeer("get", dataDirectory: dataDirectory, group: Self.group, ["--key", key])
                try await reader.waitForSuccess()
                #expect(reader.lines.all == [TypedValueNotation.canonicalText(value)], "key \(key)")
            }
        }
    }

    @Test func twoProcessesWritingDistinctKeysAtOnceLoseNone() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let writers = try ["a", "b"].map { prefix in
                try StorePeer(
                    "write-keys", dataDirectory: dataDirectory, group: Self.group,
                    ["--prefix", prefix, "--count", "500", "--gate"])
            }
            try await startTogether(writers)
            for writer in writers { try await writer.waitForSuccess() }

            let values = try await preferences(dataDirectory).allValues()
            #expect(values.count == 1_000)
            let stored = Dictionary(uniqueKeysWithValues: values.map { ($0.key, $0.value) })
            let missing = ["a", "b"].flatMap { prefix in
                (0..<500).map { ("\(prefix)\($0)", Int32($0)) }.filter { stored[$0.0] != .int32($0.1) }.map(\.0)
            }
            #expect(missing == [])
        }
    }

    @Test func updatesFromTwoProcessesAndThisOneAddUpExactly() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let counters = try (0..<2).map { _ in
                try StorePeer(
                    "increment", dataDirectory: dataDirectory, group: Self.group,
                    ["--key", "counter", "--count", "200", "--gate"])
            }
            try await startTogether(counters)
            let prefs = try preferences(dataDirectory)
            for _ in 0..<100 {
                try await prefs.update(key: "counter") { old in
                    guard case .int64(let count)? = old else { return .int64(1) }
                    return .int64(count + 1)
                }
            }
            for counter in counters { try await counter.waitForSuccess() }
            #expect(try await prefs.value(forKey: "counter") == .int64(500))
        }
    }

    /// The seeds' `itemList` pattern, done right: extensions append to a list while the containing
    /// app imports and clears it. With `take` every item is imported exactly once.
    @Test func appendersAndATakingImporterLoseNoItem() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try preferences(dataDirectory)
            let appenders = try ["x", "y"].map { prefix in
                try StorePeer(
                    "append", dataDirectory: dataDirectory, group: Self.group,
                    ["--key", "itemList", "--prefix", prefix, "--count", "150", "--gate"])
            }
            let expected = Set(["x", "y"].flatMap { prefix in (0..<150).map { "\(prefix)\($0)" } })
            try await startTogether(appenders)

            // Import the way the containing app does, while the appenders run: take the whole list.
            // Once both appenders have exited, one more take collects what they wrote last.
            var imported: [String] = []
            var takesWhileAppending = 0
            var finished = false
            while !finished {
                finished = appenders.allSatisfy(\.hasExited)
                if case .list(let items)? = try await prefs.take(key: "itemList") {
                    if !finished { takesWhileAppending += 1 }
                    imported += items.map { $0.stringValue ?? "not a string: \($0)" }
                } else if !finished {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            for appender in appenders { try await appender.waitForSuccess() }

            #expect(imported.count == expected.count, "an item was imported twice or lost")
            #expect(Set(imported) == expected)
            #expect(try await prefs.value(forKey: "itemList") == nil)
            // Each appender's items arrive in the order it appended them.
            for prefix in ["x", "y"] {
                #expect(imported.filter { $0.hasPrefix(prefix) } == (0..<150).map { "\(prefix)\($0)" })
            }
            #expect(takesWhileAppending >= 1)
        }
    }

    @Test func aWriterKilledMidLoopLeavesAReadableFileWithEveryAcknowledgedKey() async throws {
        try await TestDirectory.withPath { dataDirectory in
            var acknowledged: [String] = []
            for (round, threshold) in [40, 150, 300].enumerated() {
                let writer = try StorePeer(
                    "write-keys", dataDirectory: dataDirectory, group: Self.group,
                    ["--prefix", "r\(round)-", "--count", "1000000"])
                try await writer.lines.wait(for: "\(threshold) acknowledged writes") { $0.count >= threshold }
                writer.kill(SIGKILL)
                #expect(try await writer.waitForExit() == SIGKILL)
                acknowledged += writer.acknowledged

                // A fresh reader in this process: the file parses and holds every acknowledged key.
                let values = try await preferences(dataDirectory).allValues()
                let stored = Dictionary(uniqueKeysWithValues: values.map { ($0.key, $0.value) })
                for key in acknowledged {
                    let index = Int32(key.split(separator: "-").last!)!
                    #expect(stored[key] == .int32(index), "acknowledged key \(key)")
                }
            }
            // The store keeps working after the kills; a temporary file a killed writer left
            // behind is replaced by the next write.
            let prefs = try preferences(dataDirectory)
            try await prefs.set(.bool(true), forKey: "after")
            #expect(try await prefs.value(forKey: "after") == .bool(true))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: prefs.directory).sorted()
                    == [".lock", "preferences.json"])
        }
    }

    @Test func aReaderNeverSeesAHalfWrittenFile() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try preferences(dataDirectory)
            let writer = try StorePeer(
                "write-keys", dataDirectory: dataDirectory, group: Self.group,
                ["--prefix", "k", "--count", "400"])
            // Readers take no lock: every read while the writer replaces the file must still see a
            // whole file, holding a prefix of the writer's keys that never shrinks.
            var reads = 0
            var previousCount = 0
            while !writer.hasExited {
                let values = try await prefs.allValues()
                #expect(values.map(\.key) == (0..<values.count).map { "k\($0)" })
                #expect(values.count >= previousCount)
                previousCount = values.count
                reads += 1
            }
            try await writer.waitForSuccess()
            #expect(try await prefs.allValues().count == 400)
            #expect(reads > 1)
        }
    }

    @Test func changesMadeByAnotherProcessReachAWatcherHere() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try preferences(dataDirectory)
            try await prefs.set(.string("old"), forKey: "existing")
            let recorder = ChangeRecorder(try await prefs.changes())
            defer { recorder.stop() }

            func peer(_ command: String, _ arguments: [String] = []) async throws {
                try await StorePeer(command, dataDirectory: dataDirectory, group: Self.group, arguments)
                    .waitForSuccess()
            }
            try await peer("set", ["--key", "big", "--value", #"{"int64":"9007199254740993"}"#])
            try await recorder.changes.first(1)
            try await peer("set", ["--key", "big", "--value", #"{"int64":"9007199254740993"}"#])
            try await recorder.changes.first(2)
            try await peer("remove-all")
            let changes = try await recorder.changes.first(4)
            #expect(
                changes == [
                    StoreChange(key: "big", value: .int64(9_007_199_254_740_993)),
                    StoreChange(key: "big", value: .int64(9_007_199_254_740_993)),
                    StoreChange(key: "existing", value: nil),
                    StoreChange(key: "big", value: nil),
                ])
        }
    }

    @Test func aWatcherInAnotherProcessSeesWritesMadeHere() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try preferences(dataDirectory)
            let watcher = try StorePeer("watch", dataDirectory: dataDirectory, group: Self.group, ["--count", "4"])
            try await watcher.waitForLine("watching")

            try await prefs.set(.list(["a", "b"]), forKey: "list")
            try await watcher.lines.wait(for: "the first change") { $0.count >= 2 }
            try await prefs.set(.list(["a", "b"]), forKey: "list")
            try await watcher.lines.wait(for: "the second change") { $0.count >= 3 }
            try await prefs.set(.uint8List([1, 2]), forKey: "bytes")
            try await watcher.lines.wait(for: "the third change") { $0.count >= 4 }
            _ = try await prefs.take(key: "list")
            try await watcher.waitForSuccess()
            #expect(
                watcher.lines.all == [
                    "watching",
                    #"change list ["a","b"]"#,
                    #"change list ["a","b"]"#,
                    #"change bytes {"uint8list":"0102"}"#,
                    "change list null",
                ])
        }
    }

    @Test func changesFromSeveralProcessesAtOnceAreAllReported() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try preferences(dataDirectory)
            let recorder = ChangeRecorder(try await prefs.changes())
            defer { recorder.stop() }
            let writers = try ["p", "q"].map { prefix in
                try StorePeer(
                    "write-keys", dataDirectory: dataDirectory, group: Self.group,
                    ["--prefix", prefix, "--count", "100", "--gate"])
            }
            try await startTogether(writers)
            for writer in writers { try await writer.waitForSuccess() }
            // Changes arrive in write order, so once the change of a last write made here has
            // arrived, every earlier write has been reported. Writes in quick succession may be
            // reported together, but every key is reported.
            try await prefs.set(.int32(-1), forKey: "sentinel")
            let changes = try await recorder.changes.wait(for: "the sentinel") { $0.last?.key == "sentinel" }
            let expected = Set(["p", "q"].flatMap { prefix in (0..<100).map { "\(prefix)\($0)" } })
            #expect(expected.subtracting(changes.map(\.key)) == [])
            for change in changes.dropLast() {
                #expect(change.value == Int32(change.key.dropFirst()).map(StandardValue.int32), "\(change)")
            }
        }
    }
}
