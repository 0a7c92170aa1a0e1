import ChannelBridgeTestSupport
import Foundation
import Testing

/// A handler that traps ends its process by the signal, and the last line on standard error
/// names the channel (and method) that was running.
@Suite struct TrapReportTests {
    /// Pigeon's generated code force-casts what it reads: a message of the wrong shape (a string
    /// where `add` declares an int) makes `as!` fail in the handler, which aborts (SIGABRT).
    @Test func aPigeonHandlerThatTrapsNamesItsChannelLast() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let host = try HostProcess(["serve", directory.socket], product: "pigeon-api-example")
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        let channel = "dev.flutter.pigeon.pigeon_api_example.ShareHostApi.add"
        let sent = try await ProcessRunner.runOnThread(
            "channelbridge",
            [
                "send", channel, #"["two", 40]"#,
                "--socket", directory.socket,
            ])
        // The host ended without answering.
        #expect(sent.status == 69)
        #expect(
            sent.stderr == "channelbridge send: connection lost: connectionClosed on channel '\(channel)': "
                + "the connection closed before the reply arrived: the peer closed the connection\n")
        let ended = await host.waitForExit()
        #expect(ended.bySignal && ended.status == 6, "exit \(ended.status), by signal: \(ended.bySignal)")
        let lines = ended.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(
            lines.last == "pigeon-api-example: fatal signal SIGABRT in the handler of channel '\(channel)'",
            "\(ended.stderr)")
        #expect(lines.first?.hasPrefix("Could not cast value of type 'Swift.String'") == true, "\(ended.stderr)")
    }
}
