import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Glibc
import Foundation
import Testing

@Suite struct DetachedThreadTests {
    /// The kernel's name for the calling thread (what `top -H` and `perf` show).
    static func currentThreadName() -> String {
        let text = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .newlines)
    }

    @Test func runsTheBodyOnANewNamedThread() async throws {
        let caller = UInt(pthread_self())
        let seen = Inbox<(thread: UInt, name: String)>()
        DetachedThread.start(name: "cb test thread") { seen.put((UInt(pthread_self()), Self.currentThreadName())) }
        let (thread, name) = await seen.next()
        #expect(thread != caller)
        #expect(name == "cb test thread")
    }

    @Test func namesAreCutToWhatLinuxKeeps() async throws {
        let seen = Inbox<String>()
        DetachedThread.start(name: "a name longer than fifteen bytes") { seen.put(Self.currentThreadName()) }
        #expect(await seen.next() == "a name longer t")
    }
}
