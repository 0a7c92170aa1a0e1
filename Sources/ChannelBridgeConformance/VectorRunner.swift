import ChannelBridgeCodec

/// The outcome of one vector: passed, or the failures (expected vs actual) found.
public struct VectorResult: Sendable, Hashable {
    public var vector: Vector
    public var failures: [String]
    public var passed: Bool { failures.isEmpty }
}

/// Checks a `CodecSubject` against vectors: every encode byte for byte, every decode value for
/// value (bit patterns of floats, int32 vs int64), every malformed entry accepted or rejected.
///
/// ```swift
/// let results = await VectorRunner(subject: BuiltInCodecs()).run(try VectorFile.load(path: "Protocol/vectors/standard-scalars.json"))
/// ```
public struct VectorRunner: Sendable {
    public var subject: any CodecSubject

    public init(subject: any CodecSubject) {
        self.subject = subject
    }

    public func run(_ vectors: [Vector]) async -> [VectorResult] {
        var results: [VectorResult] = []
        results.reserveCapacity(vectors.count)
        for vector in vectors {
            results.append(VectorResult(vector: vector, failures: await failures(of: vector)))
        }
        return results
    }

    private func failures(of vector: Vector) async -> [String] {
        let codec = vector.codec
        var failures: [String] = []
        func checkEncode(_ what: String, _ expected: [UInt8], _ body: () async throws -> [UInt8]) async {
            do {
                let actual = try await body()
                if actual != expected {
                    failures.append("encode \(what): expected \(Hex.encode(expected)), got \(Hex.encode(actual))")
                }
            } catch {
                failures.append("encode \(what): expected \(Hex.encode(expected)), got error: \(error)")
            }
        }
        func checkDecode<T: Equatable>(_ expected: T, _ show: (T) -> String, _ body: () async throws -> T) async {
            do {
                let actual = try await body()
                if actual != expected {
                    failures.append("decode: expected \(show(expected)), got \(show(actual))")
                }
            } catch {
                failures.append("decode: expected \(show(expected)), got error: \(error)")
            }
        }
        let showCall = { (call: MethodCall) in CodecJSONShapes.json(for: call).text }
        let showEnvelope = { (envelope: MethodEnvelope) in CodecJSONShapes.json(for: envelope).text }

        switch vector.check {
        case .message(let value, let hex):
            await checkEncode("message", hex) { try await subject.encodeMessage(value, codec: codec) }
            await checkDecode(value, TypedValueNotation.canonicalText) {
                try await subject.decodeMessage(hex, codec: codec)
            }
        case .methodCall(let call, let hex):
            await checkEncode("method call", hex) { try await subject.encodeMethodCall(call, codec: codec) }
            await checkDecode(call, showCall) { try await subject.decodeMethodCall(hex, codec: codec) }
        case .successEnvelope(let result, let hex):
            await checkEncode("success envelope", hex) { try await subject.encodeSuccessEnvelope(result, codec: codec) }
            await checkDecode(MethodEnvelope.success(result), showEnvelope) {
                try await subject.decodeEnvelope(hex, codec: codec)
            }
        case .errorEnvelope(let error, let includingStacktrace, let hex):
            await checkEncode("error envelope", hex) {
                try await subject.encodeErrorEnvelope(error, includingStacktrace: includingStacktrace, codec: codec)
            }
            await checkDecode(MethodEnvelope.error(error), showEnvelope) {
                try await subject.decodeEnvelope(hex, codec: codec)
            }
        case .malformed(let mode, let hex, let expected):
            await checkMalformed(mode, hex, expected, codec, &failures)
        }
        return failures
    }

    private func checkMalformed(
        _ mode: Vector.Mode, _ hex: [UInt8], _ expected: Vector.Expected?,
        _ codec: VectorCodec, _ failures: inout [String]
    ) async {
        let outcome: Result<Vector.Expected, any Error>
        do {
            switch mode {
            case .message: outcome = .success(.message(try await subject.decodeMessage(hex, codec: codec)))
            case .methodCall: outcome = .success(.methodCall(try await subject.decodeMethodCall(hex, codec: codec)))
            case .envelope: outcome = .success(.envelope(try await subject.decodeEnvelope(hex, codec: codec)))
            }
        } catch {
            outcome = .failure(error)
        }
        switch (expected, outcome) {
        case (nil, .failure):
            break
        case (nil, .success(let got)):
            failures.append("decode \(mode.rawValue) \(Hex.encode(hex)): expected rejection, got \(Self.show(got))")
        case (let want?, .failure(let error)):
            failures.append(
                "decode \(mode.rawValue) \(Hex.encode(hex)): expected \(Self.show(want)), got error: \(error)")
        case (let want?, .success(let got)):
            if want != got {
                failures.append(
                    "decode \(mode.rawValue) \(Hex.encode(hex)): expected \(Self.show(want)), got \(Self.show(got))")
            }
        }
    }

    static func show(_ expected: Vector.Expected) -> String {
        switch expected {
        case .message(let value): return TypedValueNotation.canonicalText(value)
        case .methodCall(let call): return CodecJSONShapes.json(for: call).text
        case .envelope(let envelope): return CodecJSONShapes.json(for: envelope).text
        }
    }
}
