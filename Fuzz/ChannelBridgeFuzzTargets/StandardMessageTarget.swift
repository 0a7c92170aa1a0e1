import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `StandardMessageCodec.decode`, without and with a codec extension.
enum StandardMessageTarget: FuzzTarget {
    static let name = "standard-message"

    static func run(_ input: [UInt8]) {
        let plain = StandardMessageCodec()
        let extended = StandardMessageCodec(extension: FuzzExtension())
        let value: StandardValue?
        do {
            value = try plain.decode(input)
        } catch {
            CodecChecks.decodingError(error, input, CodecChecks.standardCodes)
            value = nil
        }
        if let value { CodecChecks.standardLaws(value) }

        // The extension only adds types: what decodes without it decodes the same with it.
        do {
            let withExtension = try extended.decode(input)
            if let value { require(withExtension == value, "the extension changed a plain value") }
            CodecChecks.standardLaws(withExtension, codec: extended)
        } catch {
            require(value == nil, "the extension refused what the plain codec read: \(error)")
            CodecChecks.decodingError(error, input, CodecChecks.standardCodes)
        }
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("standard-", mode: .message) + source.committed(name)
    }
}
