import ChannelBridgeCodec
import ChannelBridgeConformance

/// `channelbridge codec serve`: this package's adapter for the conformance peer line protocol
/// (`Protocol/conformance-peer.md`): `encode <codec> <kind> <json>` / `decode <codec> <kind> <hex>`
/// in, `ok <result>` / `error <message>` out, one line each, flushed per line.
enum CodecPeerServer {
    static func serve() -> Int32 {
        while let line = readLine(strippingNewline: true) {
            if line.isEmpty { continue }
            Output.line(answer(line))
            Output.flush()
        }
        return ExitCode.success
    }

    static func answer(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4,
            let direction = CodecOperation.Direction(rawValue: String(parts[0])),
            let codec = CodecOperation.CodecName(rawValue: String(parts[1]))
        else {
            return "error malformed request: expected '<encode|decode> <codec> <kind> <payload>'"
        }
        do {
            let operation = try CodecOperation(direction, codec: codec, kind: String(parts[2]))
            return "ok " + (try operation.perform(String(parts[3])))
        } catch {
            return "error " + error.description.replacingNewlines()
        }
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
