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

    /// Runs `bridge ARGUMENTS --socket <this host>`.
    func bridge(_ arguments: [String], stdin: String = "") throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("bridge", arguments + ["--socket", socket], stdin: stdin)
    }

    /// Ends the host (SIGTERM if it is still serving) and removes its directory.
    func stop() async -> HostProcess.Exit {
        host.send(signal: SIGTERM)
        let exit = await host.waitForExit()
        directory.remove()
        return exit
    }
}
