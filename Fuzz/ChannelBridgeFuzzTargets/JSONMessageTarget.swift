import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `JSONMessageCodec.decode`.
enum JSONMessageTarget: FuzzTarget {
    static let name = "json-message"

    static func run(_ input: [UInt8]) {
        let codec = JSONMessageCodec()
        let value: StandardValue
        do {
            value = try codec.decode(input)
        } catch {
            CodecChecks.decodingError(error, input, CodecChecks.jsonCodes)
            return
        }
        JSONChecks.laws(value)
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("json-", mode: .message)
    }
}

enum JSONChecks {
    /// What the JSON codec decodes, it encodes (JSON values have no NaN, no non-string key), and
    /// the encoding decodes to the same value and is a fixed point. The Standard codec carries
    /// every such value too.
    static func laws(_ value: StandardValue) {
        let codec = JSONMessageCodec()
        let bytes = CodecChecks.must("encoding a decoded JSON value") { () throws(CodecError) in try codec.encode(value)
        }
        let again = CodecChecks.must("decoding an encoding") { () throws(CodecError) in try codec.decode(bytes) }
        require(again == value, "JSON decode(encode(v)) != v for \(value)")
        require(
            CodecChecks.must("re-encoding") { () throws(CodecError) in try codec.encode(again) } == bytes,
            "JSON encoding is not a fixed point for \(value)")
        CodecChecks.standardLaws(value)
    }
}
