import ChannelBridgeTestSupport
import Foundation
import Testing

/// A host for the CLI to talk to, on a fresh directory, stopped and removed afterwards.
struct LiveHost {
    let directory: TestDirectory
    let host: HostProcess

    static func start(_ arguments: [String] = []) async throws -> LiveHost {
        let directory = try TestDirectory()
        let host = try HostProcess(["--socket", directory.socket, "--data-dir", directory.data] + arguments)
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        return LiveHost(directory: directory, host: host)
    }

    var socket: String { directory.socket }

    /// Runs `channelbridge ARGUMENTS --socket <this host>`.
    func channelbridge(_ arguments: [String], stdin: String = "") throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("channelbridge", arguments + ["--socket", socket], stdin: stdin)
    }

    /// Ends the host (SIGTERM if it is still serving) and removes its directory.
    func stop() async -> HostProcess.Exit {
        host.send(signal: SIGTERM)
        let exit = await host.waitForExit()
        directory.remove()
        return exit
    }
}

/// A `channelbridge-test-peer listen` child serving `peer/events` (and the rest of its session) on
/// `socket`, past its ready line; it exits when `stop()` closes its stdin.
struct ListeningTestPeer {
    let process: Process
    private let input: CloseOnExecPipe

    init(socket: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge-test-peer"))
        process.arguments = ["listen", socket]
        input = try CloseOnExecPipe()
        let output = try CloseOnExecPipe()
        process.standardInput = input.fileHandleForReading
        process.standardOutput = output.fileHandleForWriting
        try ProcessRunner.start(process)
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) == "ready\n")
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
