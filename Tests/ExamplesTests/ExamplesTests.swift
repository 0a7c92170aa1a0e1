import ChannelBridgeTestSupport
import Foundation
import Testing

/// Every program under Examples/ runs, as a user would run it.
@Suite struct ExamplesTests {
    @Test func eventStreamPrintsTheCountdownAndTheEnd() throws {
        let outcome = try ProcessRunner.run("event-stream-example", ["3"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "{\"int32\":3}\n{\"int32\":2}\n{\"int32\":1}\n\"liftoff\"\nend of stream\n")
    }

    @Test func customPluginIsRegisteredByNameAndCalledOverASocket() throws {
        let outcome = try ProcessRunner.run("custom-plugin-example", ["Ada"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == """
            Hello, Ada!
            greetings so far: 1
            notImplemented on channel 'example/greeter' (method 'wave'): No implementation found for method wave on channel example/greeter

            """)
    }

    /// Three extension processes share items while the containing app imports in a loop: every
    /// item is imported exactly once, none lost between the app's read and its removal.
    @Test func containingAppImportsEveryItemExactlyOnce() async throws {
        let testDirectory = try TestDirectory()
        defer { testDirectory.remove() }
        let directory = testDirectory.data
        let finished = Locked(false)
        let sharing = Task.detached {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sharer in 0..<3 {
                    group.addTask {
                        for item in 0..<20 {
                            let outcome = try await ProcessRunner.runOnThread(
                                "containing-app-example", ["share", "s\(sharer)-\(item)", "--data-dir", directory])
                            #expect(outcome.status == 0, "\(outcome.stderr)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            finished.set(true)
        }
        var imported: [String] = []
        func importOnce() async throws {
            let outcome = try await ProcessRunner.runOnThread("containing-app-example", ["import", "--data-dir", directory])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            imported += outcome.stdout.split(separator: "\n").map(String.init)
        }
        while !finished.value { try await importOnce() }
        try await importOnce()  // picks up whatever was shared after the last import in the loop
        try await sharing.value
        #expect(imported.count == 60)
        let expected = Set((0..<3).flatMap { s in (0..<20).map { "s\(s)-\($0)" } })
        #expect(Set(imported) == expected)
    }
}
