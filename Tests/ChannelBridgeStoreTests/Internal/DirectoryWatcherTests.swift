@testable import ChannelBridgeStore
import ChannelBridgePlatform
import Foundation
import Testing

/// The watcher's one thread: when it cannot be started the subscription is refused with a typed
/// error (no trap on a resource failure), and a later subscription starts it afresh.
@Suite struct DirectoryWatcherTests {
    @Test func aThreadThatCannotStartRefusesTheSubscriptionAndTheNextOneTriesAgain() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cb-watcher-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let attempts = LockedValue(0)
        let watcher = DirectoryWatcher { name, body in
            // The first start fails as pthread_create does when threads run out; later ones run.
            attempts.withLock {
                $0 += 1; return $0
            } == 1 ? 11 /* EAGAIN */ : DetachedThread.tryStart(name: name, body)
        }
        let engine = GroupEngine(files: GroupFiles(directory: directory), threadName: "test")
        let error = #expect(throws: StoreError.self) { try watcher.add(engine) }
        #expect(error?.code == .io)
        #expect(error?.message.contains("cannot start the store watcher thread") == true)
        try watcher.add(engine)
        #expect(attempts.withLock { $0 } == 2)
        watcher.remove(engine)
    }
}
