import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge prefs` keeps `"caf\u{E9}"` and `"cafe\u{301}"` apart (two keys, compared by
/// code units), through a host and directly on a store. Output is compared as bytes: Swift's
/// `String ==` would call the two spellings equal.
@Suite struct KeyIdentityCommandTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let bothKeys = #"{"map":[[""# + composed + #"","composed"],[""# + decomposed + #"","decomposed"]]}"# + "\n"

    @Test func bothSpellingsAreTwoKeysThroughAHost() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            #expect(try await live.channelbridge(["prefs", "set", Self.composed, "composed"]).status == 0)
            #expect(try await live.channelbridge(["prefs", "set", Self.decomposed, "decomposed"]).status == 0)
            #expect(
                Self.bytes(try await live.channelbridge(["prefs", "get", Self.composed]).stdout)
                    == Self.bytes("\"composed\"\n"))
            #expect(
                Self.bytes(try await live.channelbridge(["prefs", "get", Self.decomposed]).stdout)
                    == Self.bytes("\"decomposed\"\n"))
            #expect(Self.bytes(try await live.channelbridge(["prefs", "all"]).stdout) == Self.bytes(Self.bothKeys))
            #expect(try await live.channelbridge(["prefs", "remove", Self.composed]).status == 0)
            #expect(
                Self.bytes(try await live.channelbridge(["prefs", "get", Self.composed]).stdout) == Self.bytes("null\n")
            )
            #expect(
                Self.bytes(try await live.channelbridge(["prefs", "get", Self.decomposed]).stdout)
                    == Self.bytes("\"decomposed\"\n"))
        }
    }

    @Test func bothSpellingsAreTwoKeysOnAStoreAndTheHostSeesBoth() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let store = ["--data-dir", live.directory.data]  // group.local, the host's default
            func onStore(_ arguments: [String]) async throws -> ProcessRunner.Outcome {
                try await ProcessRunner.runOnThread("channelbridge", ["prefs"] + arguments + store)
            }
            #expect(try await onStore(["set", Self.composed, "composed"]).status == 0)
            #expect(try await onStore(["set", Self.decomposed, "decomposed"]).status == 0)
            #expect(Self.bytes(try await onStore(["get", Self.composed]).stdout) == Self.bytes("\"composed\"\n"))
            #expect(Self.bytes(try await onStore(["get", Self.decomposed]).stdout) == Self.bytes("\"decomposed\"\n"))
            #expect(Self.bytes(try await onStore(["all"]).stdout) == Self.bytes(Self.bothKeys))
            #expect(Self.bytes(try await live.channelbridge(["prefs", "all"]).stdout) == Self.bytes(Self.bothKeys))
            #expect(Self.bytes(try await onStore(["take", Self.decomposed]).stdout) == Self.bytes("\"decomposed\"\n"))
            #expect(
                Self.bytes(try await live.channelbridge(["prefs", "get", Self.composed]).stdout)
                    == Self.bytes("\"composed\"\n"))
        }
    }

    /// `prefs watch KEY` on a store reports that key only, not its other spelling.
    @Test func watchingOneSpellingOnAStoreIgnoresTheOther() async throws {
        try await withHangGuard {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let store = ["--data-dir", directory.data, "--app-group", "group.w"]
            let watcher = try LineDrivenChild(
                ProcessRunner.path(of: "channelbridge"), ["prefs", "watch", Self.decomposed] + store)
            defer { watcher.process.terminate() }
            // Every write after the notice is reported.
            #expect(await watcher.stderr.next() == "channelbridge prefs: watching group.w in \(directory.data)")
            #expect(
                try await ProcessRunner.runOnThread("channelbridge", ["prefs", "set", Self.composed, "other"] + store)
                    .status == 0)
            #expect(
                try await ProcessRunner.runOnThread(
                    "channelbridge", ["prefs", "set", Self.decomposed, "watched"] + store
                ).status == 0)
            let line = try #require(await watcher.stdout.next())
            #expect(
                Self.bytes(line) == Self.bytes(#"{"map":[["key",""# + Self.decomposed + #""],["value","watched"]]}"#))
        }
    }
}
