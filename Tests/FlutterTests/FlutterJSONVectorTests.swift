import ChannelBridgeCodec
import ChannelBridgeConformance
import ChannelBridgeTestSupport
import Flutter
import Foundation
import Testing

/// The JSON vectors, read with the `Flutter` JSON codecs. Only read: the vectors hold Dart's
/// text, and iOS writes Darwin's (`1.0` as `1`, `/` as `\/`), which FlutterCodecTests checks.
@Suite struct FlutterJSONVectorTests {
    static let files = ["json-messages.json", "json-method.json"].map {
        packageRoot.appendingPathComponent("Protocol/vectors/\($0)").path
    }

    @Test(arguments: files)
    func jsonVectorsReadAsIOSSeesThem(path: String) throws {
        var failures: [String] = []
        let messages = FlutterJSONMessageCodec.sharedInstance(), methods = FlutterJSONMethodCodec.sharedInstance()
        for vector in try VectorFile.load(path: path) {
            switch vector.check {
            case .message(let value, let hex):
                // Foundation's JSONSerialization on Linux reads -2^63 as an NSDecimalNumber.
                if vector.name == "json_int64_min" { continue }
                let decoded = messages.decode(Data(hex))
                if !IOSValues.matches(decoded, value) {
                    failures.append("\(vector.label): \(String(describing: decoded))")
                }
            case .methodCall(let call, let hex):
                let decoded = methods.decodeMethodCall(Data(hex))
                if decoded.method != call.method || !IOSValues.matches(decoded.arguments, call.arguments) {
                    failures.append("\(vector.label): \(decoded)")
                }
            case .successEnvelope(let result, let hex):
                let decoded = methods.decodeEnvelope(Data(hex))
                if decoded is FlutterError || !IOSValues.matches(decoded, result) { failures.append("\(vector.label)") }
            case .errorEnvelope(let error, let includingStacktrace, let hex):
                // iOS reads three-element error envelopes only.
                guard !includingStacktrace else { continue }
                guard let decoded = methods.decodeEnvelope(Data(hex)) as? FlutterError, decoded.code == error.code,
                    decoded.message == error.message, IOSValues.matches(decoded.details, error.details)
                else {
                    failures.append("\(vector.label)")
                    continue
                }
            case .malformed:
                continue
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
