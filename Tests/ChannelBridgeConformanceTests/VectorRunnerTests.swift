import ChannelBridgeCodec
import ChannelBridgeConformance
import ChannelBridgeTestSupport
import Foundation
import Testing

/// Runs every vector file the project publishes, and Flutter's own sample, against our codecs.
@Suite struct VectorRunnerTests {
    static let projectFiles: [String] =
        (try? VectorFile.files(in: packageRoot.appendingPathComponent("Protocol/vectors").path)
            .filter { !($0 as NSString).lastPathComponent.hasPrefix("framing") }) ?? []

    @Test func projectVectorsExistAndAreMany() throws {
        let count = try Self.projectFiles.flatMap { try VectorFile.load(path: $0) }.count
        #expect(count >= 150, "Protocol/vectors/ holds \(count) codec vectors")
    }

    @Test(arguments: projectFiles)
    func projectVectorFile(path: String) async throws {
        let results = await VectorRunner(subject: BuiltInCodecs()).run(try VectorFile.load(path: path))
        #expect(!results.isEmpty)
        for result in results where !result.passed {
            Issue.record("\(result.vector.label): \(result.failures.joined(separator: "; "))")
        }
    }

    /// `../shared/vectors/flutter-sample.json`, the output of Flutter's own encoders, when it is there.
    static let flutterSample: String? = sharedDirectory.map {
        $0.appendingPathComponent("vectors/flutter-sample.json").path
    }
    .flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }

    /// Reported as skipped, not passed, where the sample is missing (a bare clone).
    @Test(.enabled(if: flutterSample != nil, "needs ../shared/vectors/flutter-sample.json beside this checkout"))
    func flutterSampleFromShared() async throws {
        let path = try #require(Self.flutterSample)
        let results = await VectorRunner(subject: BuiltInCodecs()).run(try VectorFile.load(path: path))
        #expect(results.count >= 40)
        for result in results where !result.passed {
            Issue.record("\(result.vector.label): \(result.failures.joined(separator: "; "))")
        }
    }

    @Test func runnerCatchesAWrongEncoder() async throws {
        struct FlipsAByte: CodecSubject {
            let base = BuiltInCodecs()
            func encodeMessage(_ value: StandardValue, codec: VectorCodec) throws -> [UInt8] {
                var bytes = try base.encodeMessage(value, codec: codec)
                bytes[bytes.count - 1] ^= 1
                return bytes
            }
            func decodeMessage(_ bytes: [UInt8], codec: VectorCodec) throws -> StandardValue {
                try base.decodeMessage(bytes, codec: codec)
            }
            func encodeMethodCall(_ call: MethodCall, codec: VectorCodec) throws -> [UInt8] {
                try base.encodeMethodCall(call, codec: codec)
            }
            func decodeMethodCall(_ bytes: [UInt8], codec: VectorCodec) throws -> MethodCall {
                try base.decodeMethodCall(bytes, codec: codec)
            }
            func encodeSuccessEnvelope(_ result: StandardValue, codec: VectorCodec) throws -> [UInt8] {
                try base.encodeSuccessEnvelope(result, codec: codec)
            }
            func encodeErrorEnvelope(
                _ error: MethodError, includingStacktrace: Bool, codec: VectorCodec
            ) throws -> [UInt8] {
                try base.encodeErrorEnvelope(error, includingStacktrace: includingStacktrace, codec: codec)
            }
            func decodeEnvelope(_ bytes: [UInt8], codec: VectorCodec) throws -> MethodEnvelope {
                try base.decodeEnvelope(bytes, codec: codec)
            }
        }
        let file = #"{"messages": [{"name": "one", "value": {"int32": 1}, "hex": "0301000000"}]}"#
        let results = await VectorRunner(subject: FlipsAByte()).run(
            try VectorFile.parse(Array(file.utf8), file: "t.json"))
        #expect(results.map(\.failures) == [["encode message: expected 0301000000, got 0301000001"]])
    }
}
