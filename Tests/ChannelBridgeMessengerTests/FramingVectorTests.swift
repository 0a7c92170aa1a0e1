import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// Runs Protocol/vectors/framing-valid.json and framing-invalid.json.
@Suite struct FramingVectorTests {
    @Test(arguments: FramingVectors.valid)
    func validVectorDecodes(vector: FramingVectors.Valid) throws {
        var decoder = FrameDecoder()
        decoder.append(vector.bytes)
        #expect(try decoder.next() == vector.frame)
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 0)
        if vector.canonical {
            #expect(try hexString(FrameEncoder.encode(vector.frame)) == hexString(vector.bytes))
        }
    }

    /// Framing-layer vectors fail in the decoder itself, after any frames before the bad one.
    @Test(arguments: FramingVectors.invalid.filter { $0.layer == "framing" })
    func invalidVectorFailsInTheDecoder(vector: FramingVectors.Invalid) {
        var decoder = FrameDecoder(maxFrameLength: vector.maxFrameLength ?? FrameDecoder.defaultMaxFrameLength)
        decoder.append(vector.bytes)
        #expect {
            while try decoder.next() != nil {}
        } throws: { error in
            let violation = error as? ProtocolViolation
            return violation?.code.description == vector.violation && violation?.goodbyeCode == vector.goodbyeCode
        }
    }

    /// Session-layer vectors are well-formed frames that break a session rule.
    @Test(arguments: FramingVectors.invalid.filter { $0.layer == "session" })
    func sessionVectorIsWellFramed(vector: FramingVectors.Invalid) throws {
        var decoder = FrameDecoder()
        decoder.append(vector.bytes)
        while try decoder.next() != nil {}
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Every vector, fed to a live session, ends it with GOODBYE carrying the vector's code, and
    /// the session says nothing after it.
    @Test(arguments: FramingVectors.invalid)
    func invalidVectorEndsTheSessionWithGoodbye(vector: FramingVectors.Invalid) async throws {
        let (connection, peer) = InMemoryMessenger.makeRawPeer(
            role: vector.receiver,
            options: .init(
                name: "vector receiver", maxFrameLength: vector.maxFrameLength ?? FrameDecoder.defaultMaxFrameLength))
        connection.setMessageHandler(onChannel: "test/hang") { _ in
            try await untilCancelled()
            return nil
        }
        peer.send(vector.bytes)
        let frames = try peer.receivedFrames()
        #expect(frames.first?.kind == .hello)
        guard case .goodbye(let code, let reason)? = frames.last else {
            Issue.record("no GOODBYE; got \(frames)")
            return
        }
        #expect(code == vector.goodbyeCode)
        #expect(!reason.isEmpty)
        #expect(frames.count == 2)
        #expect(peer.isClosed)
        #expect(connection.closeError != nil)
    }

    @Test func invalidVectorsCoverEveryViolation() {
        let all: [ProtocolViolation.Code] = [
            .frameTooLarge, .emptyFrame, .unknownKind, .shortBody, .trailingBytes, .badMagic, .unsupportedVersion,
            .badMaxFrameLength,
            .unknownRole, .invalidUTF8, .emptyChannel, .unknownPayloadFlags, .nullPayloadWithBytes, .zeroRequestID,
            .unknownReplyStatus, .nullReplyWithBytes, .frameBeforeHello, .secondHello, .wrongRole, .duplicateRequestID,
        ]
        let covered = Set(FramingVectors.invalid.map(\.violation))
        #expect(Set(all.map(\.description)) == covered)
    }
}
