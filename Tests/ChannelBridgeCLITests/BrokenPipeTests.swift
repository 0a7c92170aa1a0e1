import ChannelBridgeTestSupport
import Foundation
import Testing

/// Writing to a pipe nobody reads, with SIGPIPE ignored (as the test process and every executable
/// here ignore it), fails with EPIPE. Foundation's non-throwing `FileHandle.write(_:)` turns that
/// into a `try!` trap; these check that neither the test support nor the CLI goes down that way.
@Suite struct BrokenPipeTests {
    /// A child that exits without reading its input: the runner's writer gets EPIPE and lets it go.
    /// (The trap this replaced took a whole CI run down: "'try!' expression unexpectedly raised an
    /// error … Broken pipe" in the runner's writer thread.)
    @Test func aChildThatNeverReadsItsInputLeavesTheRunnerStanding() async throws {
        let input = String(repeating: "x", count: 1 << 20)  // far more than a pipe holds
        let outcome = try await ProcessRunner.runOnThread("/bin/sh", ["-c", "exec 0<&-; echo done"], stdin: input)
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "done\n")
    }

    /// The CLI reporting an error to a standard error nobody reads ends with its usual status
    /// instead of a trap.
    @Test func theCLIExitsNormallyWhenItsStandardErrorHasNoReader() async throws {
        let arguments = ["no-such-command"]
        let usual = try await ProcessRunner.runOnThread("channelbridge", arguments)
        #expect(usual.status != 0)
        #expect(!usual.stderr.isEmpty, "the command reports its error on standard error")

        let (reason, status) = try await onThread {
            Result { () throws -> (Process.TerminationReason, Int32) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge"))
                process.arguments = arguments
                let errors = try CloseOnExecPipe()
                try errors.fileHandleForReading.close()  // no reader, before the child writes anything
                process.standardError = errors.fileHandleForWriting
                process.standardOutput = FileHandle.nullDevice
                try ProcessRunner.start(process)
                try errors.fileHandleForWriting.close()
                process.waitUntilExit()
                return (process.terminationReason, process.terminationStatus)
            }
        }.get()
        #expect(reason == .exit)
        #expect(status == usual.status)
    }
}
