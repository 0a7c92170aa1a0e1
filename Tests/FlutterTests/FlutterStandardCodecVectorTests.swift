import ChannelBridgeCodec
import ChannelBridgeConformance
import Flutter
import Foundation
import Testing

/// Every Standard codec vector through the `Flutter` codecs: decoding gives the value as iOS code
/// sees it, and writing that value (as the Swift types iOS code would pass) gives exactly the
/// vector's bytes. Maps with more than one entry have no order in a Swift dictionary (nor in an
/// NSDictionary on iOS), so their bytes are compared by decoding them with ChannelBridge's codec.
@Suite struct FlutterStandardCodecVectorTests {
    @Test(arguments: Vectors.projectFiles)
    func projectVectors(path: String) throws {
        let failures = try Self.run(VectorFile.load(path: path))
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.prefix(30).joined(separator: "\n"))")
    }

    @Test(.enabled(if: Vectors.sharedSample != nil, "../shared/vectors/flutter-sample.json is not present"))
    func flutterSample() throws {
        let failures = try Self.run(VectorFile.load(path: Vectors.sharedSample!))
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
    }

    static let messageCodec = FlutterStandardMessageCodec.sharedInstance()
    static let methodCodec = FlutterStandardMethodCodec.sharedInstance()

    /// The failures, one line each.
    static func run(_ vectors: [Vector]) -> [String] {
        var failures: [String] = []
        for vector in vectors {
            if let failure = check(vector) { failures.append("\(vector.label): \(failure)") }
        }
        return failures
    }

    static func check(_ vector: Vector) -> String? {
        switch vector.check {
        case .message(let value, let hex) where keyDepth(value) > FlutterStandardReader.maximumKeyDepth:
            // A differing rule of this module (flutter-embedder.md §4): such keys are refused.
            do {
                _ = try messageCodec.checkedDecode(Data(hex))
                return "accepted a map key nested deeper than \(FlutterStandardReader.maximumKeyDepth) levels"
            } catch {
                return error.code == .nestingTooDeep ? nil : "refused with \(error) instead of nestingTooDeep"
            }
        case .message(let value, let hex):
            let decoded: Any?
            do { decoded = try messageCodec.checkedDecode(Data(hex)) } catch { return "decode failed: \(error)" }
            guard IOSValues.matches(decoded, value) else { return "decoded \(String(describing: decoded))" }
            return checkWritten(value, hex) { try messageCodec.checkedEncode(IOSValues.swiftValue(value) ?? NSNull()) }
        case .methodCall(let call, let hex):
            do {
                let decoded = try methodCodec.checkedDecodeMethodCall(Data(hex))
                guard decoded.method == call.method, IOSValues.matches(decoded.arguments, call.arguments) else {
                    return "decoded \(decoded)"
                }
            } catch { return "decode failed: \(error)" }
            return checkWritten(call.arguments, hex) {
                try methodCodec.checkedEncode(
                    FlutterMethodCall(
                        methodName: call.method,
                        arguments: IOSValues.swiftValue(call.arguments)))
            }
        case .successEnvelope(let result, let hex):
            do {
                let decoded = try methodCodec.checkedDecodeEnvelope(Data(hex))
                guard !(decoded is FlutterError), IOSValues.matches(decoded, result) else {
                    return "decoded \(String(describing: decoded))"
                }
            } catch { return "decode failed: \(error)" }
            return checkWritten(result, hex) {
                try methodCodec.checkedEncodeSuccessEnvelope(IOSValues.swiftValue(result))
            }
        case .errorEnvelope(let error, let includingStacktrace, let hex):
            do {
                guard let decoded = try methodCodec.checkedDecodeEnvelope(Data(hex)) as? FlutterError,
                    decoded.code == error.code, decoded.message == error.message,
                    IOSValues.matches(decoded.details, error.details)
                else { return "decoded wrongly" }
            } catch { return "decode failed: \(error)" }
            // iOS writes no stacktrace: those envelopes are only read (and the stacktrace dropped).
            guard !includingStacktrace else { return nil }
            return checkWritten(error.details, hex) {
                try methodCodec.checkedEncodeErrorEnvelope(
                    FlutterError(
                        code: error.code, message: error.message,
                        details: IOSValues.swiftValue(error.details)))
            }
        case .malformed(let mode, let hex, let expected):
            let outcome: Result<Any?, CodecError>
            switch mode {
            case .message: outcome = Result { () throws(CodecError) in try messageCodec.checkedDecode(Data(hex)) }
            case .methodCall:
                outcome = Result { () throws(CodecError) in try methodCodec.checkedDecodeMethodCall(Data(hex)) }
            case .envelope:
                outcome = Result { () throws(CodecError) in try methodCodec.checkedDecodeEnvelope(Data(hex)) }
            }
            switch (outcome, expected) {
            case (.failure, nil): return nil
            case (.success(let value), nil): return "accepted bytes that must be rejected: \(String(describing: value))"
            case (.failure(let error), _?): return "rejected bytes that must be accepted: \(error)"
            case (.success(let value), .message(let expectedValue)?):
                return IOSValues.matches(value, expectedValue) ? nil : "decoded \(String(describing: value))"
            case (.success(let value), .methodCall(let call)?):
                guard let decoded = value as? FlutterMethodCall, decoded.method == call.method,
                    IOSValues.matches(decoded.arguments, call.arguments)
                else { return "decoded \(String(describing: value))" }
                return nil
            case (.success(let value), .envelope(.success(let result))?):
                return IOSValues.matches(value, result) ? nil : "decoded \(String(describing: value))"
            case (.success(let value), .envelope(.error(let error))?):
                guard let decoded = value as? FlutterError, decoded.code == error.code,
                    decoded.message == error.message,
                    IOSValues.matches(decoded.details, error.details)
                else { return "decoded \(String(describing: value))" }
                return nil
            }
        }
    }

    /// How deep the deepest list or map used as a map key in `value` nests (0 when none is).
    static func keyDepth(_ value: StandardValue) -> Int {
        func depth(_ value: StandardValue) -> Int {
            switch value {
            case .list(let elements): 1 + (elements.map(depth).max() ?? 0)
            case .map(let entries): 1 + (entries.flatMap { [$0.key, $0.value] }.map(depth).max() ?? 0)
            default: 0
            }
        }
        switch value {
        case .list(let elements): return elements.map(keyDepth).max() ?? 0
        case .map(let entries):
            return entries.map { max(depth($0.key), keyDepth($0.key), keyDepth($0.value)) }.max() ?? 0
        default: return 0
        }
    }

    /// Writes with `encode` and compares with `hex`: byte for byte, or for values with unordered
    /// maps, by ChannelBridge's decoding of both with map entries compared as sets.
    static func checkWritten(_ value: StandardValue, _ hex: [UInt8], _ encode: () throws -> Data?) -> String? {
        if IOSValues.mapKeysCollapse(value) { return nil }
        let written: Data?
        do { written = try encode() } catch { return "encode failed: \(error)" }
        guard let written else { return "encode gave no message" }
        if !IOSValues.hasUnorderedMaps(value) {
            return [UInt8](written) == hex ? nil : "wrote \(Hex.encode([UInt8](written)))"
        }
        return Unordered.sameBytes([UInt8](written), hex) ? nil : "wrote \(Hex.encode([UInt8](written)))"
    }
}

/// Compares two encodings whose maps may list their pairs in different orders.
enum Unordered {
    /// (Reordered pairs may need other padding, so the lengths can differ too.)
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let codec = StandardMessageCodec()
        if let x = try? codec.decode(a), let y = try? codec.decode(b) { return same(x, y) }
        let method = StandardMethodCodec()
        if let x = try? method.decodeMethodCall(a), let y = try? method.decodeMethodCall(b) {
            return x.method == y.method && same(x.arguments, y.arguments)
        }
        if let x = try? method.decodeEnvelope(a), let y = try? method.decodeEnvelope(b) {
            switch (x, y) {
            case (.success(let p), .success(let q)): return same(p, q)
            case (.error(let p), .error(let q)):
                return p.code == q.code && p.message == q.message && same(p.details, q.details)
            default: return false
            }
        }
        return false
    }

    static func same(_ x: StandardValue, _ y: StandardValue) -> Bool {
        switch (x, y) {
        case (.list(let p), .list(let q)): return p.count == q.count && zip(p, q).allSatisfy(same)
        case (.map(let p), .map(let q)):
            guard p.count == q.count else { return false }
            var unmatched = q
            for entry in p {
                guard
                    let index = unmatched.firstIndex(where: { same($0.key, entry.key) && same($0.value, entry.value) })
                else { return false }
                unmatched.remove(at: index)
            }
            return true
        default: return x == y
        }
    }
}
