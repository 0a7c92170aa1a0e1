import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Group commit in one process: writes that wait for the group's lock are committed together and
/// acknowledged only after their replace; a write whose task is cancelled first writes nothing.
@Suite struct GroupCommitTests {
    static let group = "group.commit"

    /// The change log's `seq`: how many replaces the file has had.
    func replaces(_ prefs: AppGroupPreferences) throws -> Int {
        let json = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: prefs.preferencesFile)))
        guard case .number(let seq)? = json["changeLog"]?["seq"], let count = Int(seq) else {
            throw HangGuardExpired(description: "no change log in \(json.text)")
        }
        return count
    }

    /// Holds the group's lock as another writer would (its own open file description).
    func lockGroup(_ prefs: AppGroupPreferences) throws -> Int32 {
        let fd = open(prefs.directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        try #require(flock(fd, LOCK_EX) == 0)
        return fd
    }

    @Test func writesWaitingForTheLockAreCommittedTogetherAndAcknowledgedAfterTheReplace() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            try await prefs.set("before", forKey: "first")
            #expect(try replaces(prefs) == 1)
            let lock = try lockGroup(prefs)
            let acknowledged = Acknowledgements()
            // Each set takes its place in the queue before it first suspends.
            let writes = (0..<100).map { index in
                Task.immediate {
                    try await prefs.set(.int32(Int32(index)), forKey: "k\(index)")
                    acknowledged.add()
                }
            }
            // Another writer holds the lock: nothing is acknowledged, the file is as it was, and a
            // read (which takes no lock) still answers.
            #expect(acknowledged.count == 0)
            #expect(try replaces(prefs) == 1)
            #expect(try await prefs.value(forKey: "first") == "before")
            #expect(try await prefs.value(forKey: "k0") == nil)
            close(lock)
            for write in writes { try await write.value }
            #expect(acknowledged.count == 100)
            // After the first set's replace: one for the write the committer had taken when it
            // blocked on the lock and one for the other 99 (or one for all 100, had it taken none).
            #expect((2...3).contains(try replaces(prefs)))
            let values = try await AppGroupStore(dataDirectory: dataDirectory).group(Self.group).allValues()
            #expect(values.map(\.key) == ["first"] + (0..<100).map { "k\($0)" })
        }
    }

    @Test func aWriteWhoseTaskIsCancelledBeforeItIsQueuedWritesNothing() async throws {
        try await TestDirectory.withPath { dataDirectory in
            let prefs = try AppGroupStore(dataDirectory: dataDirectory).group(Self.group)
            let gate = Gate()
            let write = Task {
                await gate.wait()
                try await prefs.set("never", forKey: "k")
            }
            write.cancel()
            gate.open()
            let error = await #expect(throws: StoreError.self) { try await write.value }
            #expect(error?.code == .cancelled)
            #expect(error?.message == "the set of 'k' was cancelled before it was written; nothing was written")
            #expect(try await prefs.value(forKey: "k") == nil)
            #expect(!FileManager.default.fileExists(atPath: prefs.preferencesFile))
        }
    }
}

/// How many writes have returned, counted from their tasks.
private final class Acknowledgements: Sendable {
    private let value = Atomic<Int>(0)
    func add() { value.wrappingAdd(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
