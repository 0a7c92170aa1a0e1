import ChannelBridgeCodec
import ChannelBridgeConformance

/// `channelbridge codec encode|decode|serve`: the codecs for scripts, one line in, one line out.
enum CodecCommand: CLICommand {
    static let name = "codec"
    static let summary = "encode or decode values with Flutter's codecs, one per line"

    static let help = """
        usage: channelbridge codec encode --codec CODEC [--kind KIND]   (stdin: one JSON line per value)
               channelbridge codec decode --codec CODEC [--kind KIND]   (stdin: one hex line per message)
               channelbridge codec serve                                 (the conformance peer line protocol)

        CODEC is standard, standard-method, json or json-method.
        KIND is 'message' for standard and json (the default); for the method codecs,
        call|success|error to encode and call|envelope to decode.

        Values are typed value notation (TVN). Method kinds take one JSON object per line:
          call    {"method": "exit", "args": TVN}
          success {"result": TVN}
          error   {"code": "E", "message": "m" | null, "details": TVN, "stacktrace"?: "s" | null}
        encode prints lowercase hex; decode prints canonical TVN (or the objects above).
        A line that fails prints 'error: <message>' and the rest go on; the exit status is 1
        if any line failed. Empty lines are skipped.

        Examples:
          echo '{"int32": 1}' | channelbridge codec encode --codec standard          # 0301000000
          echo 0703666f6f00 | channelbridge codec decode --codec standard-method --kind call
          echo '{"method":"exit","args":null}' | channelbridge codec encode --codec json-method --kind call
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["codec", "kind"])
        guard let verb = args.positionals.first else {
            if args.wantsHelp {
                Output.line(help)
                Output.flush()
                return ExitCode.success
            }
            throw UsageError("missing encode, decode or serve")
        }
        if args.wantsHelp {
            Output.line(help)
            Output.flush()
            return ExitCode.success
        }
        guard args.positionals.count == 1 else { throw UsageError("unexpected argument '\(args.positionals[1])'") }
        switch verb {
        case "serve":
            return CodecPeerServer.serve()
        case "encode", "decode":
            guard let codecName = args.value("codec") else { throw UsageError("missing --codec") }
            guard let codec = CodecOperation.CodecName(rawValue: codecName) else {
                throw UsageError(
                    "unknown codec '\(codecName)'; use one of: \(CodecOperation.CodecName.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            let operation: CodecOperation
            do {
                operation = try CodecOperation(
                    CodecOperation.Direction(rawValue: verb)!, codec: codec, kind: args.value("kind"))
            } catch {
                throw UsageError(error.message)
            }
            return process(operation)
        default:
            throw UsageError("unknown subcommand '\(verb)'; use encode, decode or serve")
        }
    }

    /// Streams stdin: one result line per non-empty input line, in order.
    static func process(_ operation: CodecOperation) -> Int32 {
        var failed = false
        while let line = readLine(strippingNewline: true) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            do {
                Output.line(try operation.perform(line))
            } catch {
                failed = true
                Output.line("error: \(error.description)")
            }
        }
        Output.flush()
        return failed ? ExitCode.failure : ExitCode.success
    }
}
