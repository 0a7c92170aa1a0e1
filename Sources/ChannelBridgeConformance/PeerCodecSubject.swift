public import ChannelBridgeCodec
import ChannelBridgePlatform
import Dispatch
import Foundation

/// A codec implementation in another process, spoken to over the conformance peer line protocol
/// (`Protocol/conformance-peer.md`): one request line on its stdin, one `ok …`/`error …` line back.
///
/// A peer that does not answer within `timeout` is killed and reported; once it has died, every
/// further request fails at once, naming how it ended.
///
/// ```swift
/// let peer = try PeerCodecSubject(command: "channelbridge codec serve")
/// let results = await VectorRunner(subject: peer).run(vectors)
/// peer.close()
/// ```
// Invariant: pipes are used only on `queue`; `process` is launched in init, then only signalled or queried (thread-safe).
public final class PeerCodecSubject: CodecSubject, @unchecked Sendable {
    /// The peer answered `error …`: the vector counts as rejected by it.
    public struct Rejection: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The peer broke the line protocol, hung or died.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let timeout: Duration
    private let command: String
    // I/O runs here, never on the cooperative pool: reads and writes to the pipes block.
    private let queue = DispatchQueue(label: "channelbridge.conformance.peer")
    private let state = LockedValue(PeerState())

    private struct PeerState {
        var buffered: [UInt8] = []
        var dead: String?
    }

    public init(command: String, timeout: Duration = .seconds(10)) throws {
        self.command = command
        self.timeout = timeout
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        try process.run()
    }

    /// Ends the peer: closes its stdin and waits briefly, then kills it.
    public func close() {
        try? input.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { Syscalls.sleep(microseconds: 10_000) }
        killGroup()
    }

    deinit {
        killGroup()
    }

    /// Foundation starts the peer in a process group of its own; killing the group also ends
    /// whatever an adapter script started (which would otherwise keep the pipes open).
    private func killGroup() {
        let pid = process.processIdentifier
        if pid > 0 { Syscalls.killImmediately(-pid) }  // a negative pid names the group
    }

    /// Sends one request line and returns the payload of its `ok` answer.
    func request(_ line: String) async throws -> String {
        if let dead = state.withLock({ $0.dead }) { throw Failure(message: dead) }
        let answer: Result<String, Failure> = await withCheckedContinuation { continuation in
            let once = LockedValue(Optional(continuation))
            // Whichever comes first, the answer or the deadline, resumes the caller.
            let finish: @Sendable (Result<String, Failure>) -> Bool = { result in
                guard let waiting = once.withLock({ $0.take() }) else { return false }
                waiting.resume(returning: result)
                return true
            }
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                let failure = Failure(message: "peer did not answer within \(timeout) (request: \(line.prefix(80)))")
                if finish(.failure(failure)) {
                    markDead("peer was killed after it hung")
                    killGroup()
                }
            }
            queue.async { [self] in
                _ = finish(exchange(line))
            }
        }
        let text = try answer.get()
        if text.hasPrefix("ok ") || text == "ok" { return String(text.dropFirst(3)) }
        if text.hasPrefix("error") { throw Rejection(message: String(text.dropFirst(6))) }
        throw Failure(message: "peer broke the line protocol: answered '\(text.prefix(120))'")
    }

    private func markDead(_ reason: String) {
        state.withLock { if $0.dead == nil { $0.dead = reason } }
    }

    /// Blocking write of one line and read of one line; runs on `queue`.
    private func exchange(_ line: String) -> Result<String, Failure> {
        if let dead = state.withLock({ $0.dead }) { return .failure(Failure(message: dead)) }
        do {
            try input.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            return .failure(died())
        }
        while true {
            if let newline = state.withLock({ $0.buffered.firstIndex(of: 0x0A) }) {
                let lineBytes = state.withLock { state -> [UInt8] in
                    let bytes = Array(state.buffered[..<newline])
                    state.buffered.removeFirst(newline + 1)
                    return bytes
                }
                return .success(String(decoding: lineBytes, as: UTF8.self))
            }
            let chunk = output.availableData
            if chunk.isEmpty { return .failure(died()) }
            state.withLock { $0.buffered.append(contentsOf: chunk) }
        }
    }

    private func died() -> Failure {
        process.waitUntilExit()
        let reason =
            process.terminationReason == .uncaughtSignal
            ? "peer '\(command)' died from signal \(process.terminationStatus)"
            : "peer '\(command)' exited with status \(process.terminationStatus)"
        markDead(reason)
        return Failure(message: state.withLock { $0.dead } ?? reason)
    }

    private func name(_ codec: VectorCodec, method: Bool) -> String {
        codec.rawValue + (method ? "-method" : "")
    }

    private func decodeJSON(_ text: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(text, maxDepth: CodecJSONShapes.maxJSONDepth)
        } catch {
            throw Failure(message: "peer answered JSON that does not parse: \(error)")
        }
    }

    public func encodeMessage(_ value: StandardValue, codec: VectorCodec) async throws -> [UInt8] {
        try Hex.decode(
            try await request("encode \(name(codec, method: false)) message \(TypedValueNotation.canonicalText(value))")
        )
    }

    public func decodeMessage(_ bytes: [UInt8], codec: VectorCodec) async throws -> StandardValue {
        try TypedValueNotation.value(
            from: try decodeJSON(try await request("decode \(name(codec, method: false)) message \(Hex.encode(bytes))"))
        )
    }

    public func encodeMethodCall(_ call: MethodCall, codec: VectorCodec) async throws -> [UInt8] {
        try Hex.decode(
            try await request("encode \(name(codec, method: true)) call \(CodecJSONShapes.json(for: call).text)"))
    }

    public func decodeMethodCall(_ bytes: [UInt8], codec: VectorCodec) async throws -> MethodCall {
        try CodecJSONShapes.methodCall(
            from: try decodeJSON(try await request("decode \(name(codec, method: true)) call \(Hex.encode(bytes))")))
    }

    public func encodeSuccessEnvelope(_ result: StandardValue, codec: VectorCodec) async throws -> [UInt8] {
        let json = JSONValue.object([.init("result", TypedValueNotation.json(for: result))])
        return try Hex.decode(try await request("encode \(name(codec, method: true)) success \(json.text)"))
    }

    public func encodeErrorEnvelope(
        _ error: MethodError, includingStacktrace: Bool, codec: VectorCodec
    ) async throws -> [UInt8] {
        let json = CodecJSONShapes.json(for: error, includingStacktrace: includingStacktrace)
        return try Hex.decode(try await request("encode \(name(codec, method: true)) error \(json.text)"))
    }

    public func decodeEnvelope(_ bytes: [UInt8], codec: VectorCodec) async throws -> MethodEnvelope {
        try CodecJSONShapes.envelope(
            from: try decodeJSON(try await request("decode \(name(codec, method: true)) envelope \(Hex.encode(bytes))"))
        )
    }
}
