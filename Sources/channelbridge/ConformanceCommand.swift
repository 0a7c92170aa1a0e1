import ChannelBridgeCodec
import ChannelBridgeConformance
import ChannelBridgeSocket
import Foundation
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// `channelbridge conformance`: runs vector files against our codecs or an external implementation.
enum ConformanceCommand: CLICommand {
    static let name = "conformance"
    static let summary = "check a codec implementation against the golden vectors"

    static let help = """
        usage: channelbridge conformance [--vectors PATH ...] [--peer "COMMAND" | --socket PATH] [--timeout SECONDS] [--json]

        Runs every vector in the files given (a file or a directory of .json files; default: the
        project's Protocol/vectors/) against this package's codecs, or with --peer against an
        external implementation that speaks the line protocol of Protocol/conformance-peer.md on
        its stdin/stdout. Every encode is compared byte for byte, every decode value for value
        (float bit patterns, int32 vs int64), every malformed entry for acceptance or rejection.

        Prints one line per failure and a closing line 'N passed, M failed'; exits 1 on any
        failure. --json prints one JSON report instead. A peer that does not answer within
        --timeout seconds (default 10) is killed and reported.

        With --socket, a live check of a running peer over the wire protocol instead: each
        vector's bytes are sent on channelbridge/echo (which `extension-host --echo` serves) and
        the reply must be byte-identical, which catches framing and alignment errors in a
        transport as well as in a codec.

        Examples:
          channelbridge conformance
          channelbridge conformance --vectors Protocol/vectors/standard-scalars.json
          channelbridge conformance --peer "channelbridge codec serve"
          channelbridge conformance --peer "python3 my_adapter.py" --json
          channelbridge conformance --socket /tmp/host.sock
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["vectors", "peer", "timeout", "socket"], flags: ["json"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        guard let timeout = Double(args.value("timeout") ?? "10"), timeout > 0 else {
            throw UsageError("--timeout takes a positive number of seconds")
        }
        let paths = args.values("vectors").isEmpty ? [try defaultVectorsDirectory()] : args.values("vectors")
        var vectors: [Vector] = []
        do {
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw UsageError("no such vector file or directory: \(path)")
                }
                let files = isDirectory.boolValue ? try VectorFile.files(in: path) : [path]
                for file in files { vectors += try VectorFile.load(path: file) }
            }
        } catch let error as UsageError {
            throw error
        } catch {
            Output.error("channelbridge conformance: \(error)")
            return ExitCode.dataError
        }

        if args.value("peer") != nil && args.value("socket") != nil {
            throw UsageError("--peer and --socket exclude each other")
        }
        let results: [VectorResult]?
        if let socket = args.value("socket") {
            let connection: SocketConnection
            do {
                connection = try await SocketConnection.connect(to: socket)
                _ = try await connection.messenger.waitForPeerHello()
            } catch {
                Output.error("channelbridge conformance: cannot reach a peer at \(socket): \(error)")
                return ExitCode.unavailable
            }
            results = await EchoCheck(messenger: connection.messenger).run(vectors)
            connection.close()
        } else {
            results = await runOnCodecs(vectors, peerCommand: args.value("peer"), timeout: timeout)
        }
        guard let results else { return ExitCode.unavailable }

        let failed = results.filter { !$0.passed }
        if args.flag("json") {
            Output.line(report(results).text)
        } else {
            for result in failed {
                for failure in result.failures { Output.line("FAIL \(result.vector.label): \(failure)") }
            }
            Output.line("\(results.count - failed.count) passed, \(failed.count) failed")
        }
        return failed.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// Runs the vectors on our codecs, or on a peer's; nil when the peer cannot be started.
    static func runOnCodecs(_ vectors: [Vector], peerCommand: String?, timeout: Double) async -> [VectorResult]? {
        let subject: any CodecSubject
        var peer: PeerCodecSubject?
        if let command = peerCommand {
            do {
                peer = try PeerCodecSubject(command: command, timeout: .milliseconds(Int(timeout * 1000)))
            } catch {
                Output.error("channelbridge conformance: cannot start peer '\(command)': \(error)")
                return nil
            }
            subject = peer!
        } else {
            subject = BuiltInCodecs()
        }
        let results = await VectorRunner(subject: subject).run(vectors)
        peer?.close()
        return results
    }

    static func report(_ results: [VectorResult]) -> JSONValue {
        let failed = results.filter { !$0.passed }
        return .object([
            .init("passed", .number(String(results.count - failed.count))),
            .init("failed", .number(String(failed.count))),
            .init(
                "failures",
                .array(
                    failed.map { result in
                        .object([
                            .init("file", .string(result.vector.file)),
                            .init("name", .string(result.vector.name)),
                            .init("section", .string(result.vector.section)),
                            .init("problems", .array(result.failures.map(JSONValue.string))),
                        ])
                    })),
        ])
    }

    /// `Protocol/vectors` in the working directory, else beside the checkout the binary was built in.
    static func defaultVectorsDirectory() throws -> String {
        var candidates = [FileManager.default.currentDirectoryPath + "/Protocol/vectors"]
        var url = URL(fileURLWithPath: OwnExecutable.path()).deletingLastPathComponent()
        for _ in 0..<5 {
            url.deleteLastPathComponent()
            candidates.append(url.appendingPathComponent("Protocol/vectors").path)
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw UsageError("cannot find Protocol/vectors; run from the package root or pass --vectors PATH")
        }
        return found
    }
}
