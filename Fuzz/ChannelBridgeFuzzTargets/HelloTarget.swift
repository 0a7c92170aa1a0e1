import ChannelBridgeMessenger

/// Entry point: HELLO parsing, through `FrameDecoder` with the input as a HELLO frame's body.
enum HelloTarget: FuzzTarget {
    static let name = "hello"
    static let codes: Set<ProtocolViolation.Code> = [
        .badMagic, .unsupportedVersion, .unknownRole, .invalidUTF8, .shortBody,
        .badMaxFrameLength,
    ]

    static func run(_ input: [UInt8]) {
        var frame: [UInt8] = []
        let length = UInt32(1 + input.count)
        for index in 0..<4 { frame.append(UInt8(truncatingIfNeeded: length >> (8 * index))) }
        frame.append(Frame.Kind.hello.rawValue)
        frame += input
        var decoder = FrameDecoder()
        decoder.append(frame)
        let hello: Frame.Hello
        do {
            guard case .hello(let decoded)? = try decoder.next() else {
                finding("a whole HELLO frame did not give a HELLO")
            }
            hello = decoded
        } catch {
            require(codes.contains(error.code), "HELLO refused with \(error.code): \(error)")
            return
        }
        FrameChecks.roundTrip(.hello(hello))
        // Without bytes after the peer name, the body is exactly what the encoder writes.
        guard let encoded = try? FrameEncoder.encode(.hello(hello)) else {
            finding("a decoded HELLO does not encode: \(hello)")
        }
        if input.count == 11 + hello.peerName.utf8.count {
            require(Array(encoded.dropFirst(5)) == input, "a HELLO body without extensions re-encodes differently")
        }
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.framingStreams()
            .filter { $0.count > 4 && $0[4] == Frame.Kind.hello.rawValue }
            .map { Array($0.dropFirst(5)) }
    }
}
