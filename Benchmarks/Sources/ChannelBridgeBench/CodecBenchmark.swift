import ChannelBridge
import Foundation

/// `codec`: StandardMessageCodec encode+decode of the representative payload, against a C
/// implementation of the same format on the same bytes (`channelbridge-raw-bench codec`) and
/// Foundation's JSONEncoder/JSONDecoder on the same data as a Codable struct, interleaved. And
/// `encode_us_codable`: the Codable struct encoded through StandardValueEncoder then the codec,
/// against the codec encoding the same StandardValue tree, already built.
enum CodecBenchmark {
    struct Origin: Codable { var x: Double; var y: Double }
    struct Payload: Codable {
        var id: Int32, timestamp: Int64, count: Int32, offset: Int32, big: Int64
        var ratio: Double, pi: Double, neg: Double, large: Double
        var name: String, title: String, path: String, desc: String, url: String, text: String
        var enabled: Bool, visible: Bool
        var samples: [Int32]
        var blob: Data
        var origin: Origin
    }

    static func loadPayload() throws -> StandardValue {
        guard let url = Bundle.module.url(forResource: "representative-payload.tvn", withExtension: "json"),
            let data = FileManager.default.contents(atPath: url.path)
        else {
            throw BenchError("the representative payload is missing from the ChannelBridgeBench bundle")
        }
        return try TypedValueNotation.value(from: try JSONValue.parse(Array(data)))
    }

    /// The payload as the Codable struct, read with StandardValueDecoder; encoding it back with
    /// StandardValueEncoder must give the very same tree, or the `encode_us_codable` figure would
    /// compare different work.
    static func codable(from value: StandardValue) throws -> Payload {
        let payload = try StandardValueDecoder().decode(Payload.self, from: value)
        guard try StandardValueEncoder().encode(payload) == value else {
            throw BenchError("the Codable payload does not encode to the representative payload")
        }
        return payload
    }

    /// Microseconds per encode+decode, best of a few timed batches (so one scheduler hiccup does
    /// not define the figure).
    static func measure(iterations: Int, _ body: () throws -> Int) rethrows -> Double {
        var sink = 0
        var best = Double.infinity
        for _ in 0..<3 {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<iterations { sink &+= try body() }
            let elapsed = clock.now - start
            let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
            best = min(best, micros / Double(iterations))
        }
        if sink == 42 { print("") }  // keeps the work observable to the optimizer
        return best
    }

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let value = try loadPayload()
        let payload = try codable(from: value)
        let codec = StandardMessageCodec()
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        // The C codec gets the very bytes our codec produces, and checks it re-encodes them exactly.
        let encoded = try codec.encode(value)
        let directory = BenchPeer.socketDirectory("codec")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let payloadPath = directory + "/representative-payload.bin"
        guard FileManager.default.createFile(atPath: payloadPath, contents: Data(encoded)) else {
            throw BenchError("cannot write \(payloadPath)")
        }
        let oursIterations = settings.scaled(20_000)
        let cIterations = settings.scaled(100_000)
        let jsonIterations = settings.scaled(500)
        var ours = BenchSeries("encdec_us")
        var c = BenchSeries("encdec_us"), json = BenchSeries("encdec_us_foundation_json")
        var codableEncode = BenchSeries("encode_us_codable"), valueEncode = BenchSeries("encode_us_value")
        let valueEncoder = StandardValueEncoder()
        for _ in 0..<settings.repetitions {
            ours.values.append(
                try measure(iterations: oursIterations) {
                    let bytes = try codec.encode(value)
                    guard case .map(let entries) = try codec.decode(bytes) else { return 0 }
                    return entries.count + bytes.count
                })
            BenchWatchdog.tick()
            let raw = try await RawBaseline.run("codec", ["count": cIterations], payload: payloadPath)
            c.values.append(try RawBaseline.figure("encdec_us", in: raw))
            json.values.append(
                try measure(iterations: jsonIterations) {
                    let data = try encoder.encode(payload)
                    return try decoder.decode(Payload.self, from: data).samples.count + data.count
                })
            codableEncode.values.append(
                try measure(iterations: oursIterations) {
                    try codec.encode(try valueEncoder.encode(payload)).count
                })
            valueEncode.values.append(
                try measure(iterations: oursIterations) {
                    try codec.encode(value).count
                })
        }
        return ScenarioResult(
            scenario: "codec",
            rows: [
                BenchRow(
                    figure: "encdec_us", ours: ours, baseline: c,
                    baselineLabel: "C Standard codec, \(encoded.count)-byte payload"),
                BenchRow(
                    figure: "encdec_us_foundation_json", ours: ours, baseline: json,
                    baselineLabel: "Foundation JSONEncoder/JSONDecoder, Codable struct"),
                BenchRow(
                    figure: "encode_us_codable", ours: codableEncode, baseline: valueEncode,
                    baselineLabel: "encode of the same StandardValue tree, already built"),
            ])
    }
}
