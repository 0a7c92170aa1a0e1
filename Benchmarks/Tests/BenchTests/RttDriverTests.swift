import Foundation
import Testing

/// `channelbridge-rtt-driver`, the program `Scripts/count-instructions` runs under callgrind, run
/// here without valgrind at a tiny size: its server serves the rtt scenario's `echo` until its
/// stdin ends, its client makes exactly the calls it is asked for and checks every reply, and
/// both end with status 0, so the script's counts come from a pair that did the work.
@Suite struct RttDriverTests {
    static let driver = "channelbridge-rtt-driver"

    @Test(arguments: [1, 200])
    func clientMakesItsCallsAndBothExitZero(count: Int) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socket = directory.path + "/rtt.sock"
        let server = try ServerProcess(Self.driver, ["serve", "--socket", socket])
        #expect(try await server.readyLine() == "ready \(socket)")
        let client = try await BenchProcess.run(
            Self.driver, ["call", "--socket", socket, "--count", String(count)], limit: 60)
        #expect(client.status == 0, "stderr: \(client.stderr)")
        #expect(client.stdout == "" && client.stderr == "")
        // A second client on the same server: the server keeps serving after a connection ends.
        let again = try await BenchProcess.run(Self.driver, ["call", "--socket", socket, "--count", "3"], limit: 60)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let exit = try await server.stop()
        #expect(exit.status == 0 && !exit.bySignal, "stderr: \(exit.stderr)")
        #expect(exit.stdoutLines == [])
        #expect(exit.stderr == "")
    }

    /// `serve-host --keys K` writes a group of K keys before the host starts, and `call-host
    /// --keys K` reads them as `channelbridge-bench prefs` does, checking every value it is answered.
    @Test func hostClientReadsEveryKeyOfAGroupOfKeys() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socket = directory.path + "/h.sock"
        let server = try ServerProcess(
            Self.driver, ["serve-host", "--socket", socket, "--data-dir", directory.path + "/data", "--keys", "50"])
        #expect(try await server.readyLine() == "ready \(socket)")
        let client = try await BenchProcess.run(
            Self.driver, ["call-host", "--socket", socket, "--count", "120", "--keys", "50"], limit: 60)
        #expect(client.status == 0 && client.stderr == "", "stderr: \(client.stderr)")
        // A client that expects a larger group asks for keys this one lacks, and says which.
        let larger = try await BenchProcess.run(
            Self.driver, ["call-host", "--socket", socket, "--count", "3", "--keys", "100000"], limit: 60)
        #expect(larger.status == 1, "stderr: \(larger.stderr)")
        #expect(larger.stderr.contains("call 2: getString k7919 answered null"), "\(larger.stderr)")
        let exit = try await server.stop()
        #expect(exit.status == 0 && !exit.bySignal, "stderr: \(exit.stderr)")
    }

    @Test func clientWithoutAServerFailsWithStatusOne() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let outcome = try await BenchProcess.run(
            Self.driver, ["call", "--socket", directory.path + "/none.sock", "--count", "1"], limit: 60)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.hasPrefix("channelbridge-rtt-driver call: "), "\(outcome.stderr)")
    }

    @Test(arguments: [
        [], ["call", "--socket", "/tmp/x.sock"], ["call", "--socket", "/tmp/x.sock", "--count", "-1"],
        ["serve", "--socket", "/tmp/x.sock", "--count", "1"], ["serve", "--frobnicate", "1"],
        ["call", "--socket", "/tmp/x.sock", "--count", "1", "--keys", "5"],
        ["call-host", "--socket", "/tmp/x.sock", "--count", "1", "--keys", "0"],
    ])
    func usageErrorsExit64(arguments: [String]) async throws {
        let outcome = try await BenchProcess.run(Self.driver, arguments, limit: 60)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("usage: channelbridge-rtt-driver serve --socket PATH"), "\(outcome.stderr)")
    }
}
