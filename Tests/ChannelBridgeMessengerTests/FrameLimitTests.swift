import ChannelBridgeBytes
import ChannelBridgeMessenger
import ChannelBridgeTesting
import ChannelBridgeTestSupport
import Testing

/// Frame limits without traps (wire protocol §2.1, §4.8): the encoder refuses what cannot be a
/// frame, HELLO announces a maximum other than the default, and a reply larger than the peer
/// accepts becomes an error reply while the session goes on.
@Suite struct FrameLimitTests {
    @Test func theEncoderRefusesWhatCannotBeAFrameInsteadOfTrapping() throws {
        #expect {
            try FrameEncoder.encode(.request(id: 1, channel: String(repeating: "c", count: 70_000), payload: []))
        } throws: { ($0 as? MessengerError)?.code == .invalidChannel }
        #expect { try FrameEncoder.encode(.message(channel: "", payload: nil)) } throws: {
            ($0 as? MessengerError)?.code == .invalidChannel
        }
        // Over 4 GiB: the u32 length field cannot say it.
        #expect {
            try FrameEncoder.validate(.reply(id: 1, result: .bytes([])), extraPayloadLength: Int(UInt32.max))
        } throws: { ($0 as? MessengerError)?.code == .frameTooLarge }
        #expect { try FrameEncoder.encode(.hello(.init(role: .client, peerName: "p", maxFrameLength: 8))) } throws: {
            ($0 as? MessengerError)?.code == .frameTooLarge
        }
        var buffer: [UInt8] = [0xAA]
        #expect(throws: MessengerError.self) {
            try FrameEncoder.encode(.request(id: 1, channel: "", payload: nil), into: &buffer)
        }
        #expect(buffer == [0xAA], "a refused frame leaves the buffer as it was")
    }

    @Test func helloAnnouncesAMaximumFrameLengthOtherThanTheDefault() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let (client, host) = InMemoryMessenger.makePair(client: .init(name: "c", maxFrameLength: 1000))
            defer { client.close() }
            #expect(try await host.waitForPeerHello().maxFrameLength == 1000)
            #expect(try await host.waitForPeerHello().flags == Frame.Hello.maxFrameLengthFlag)
            #expect(try await client.waitForPeerHello().maxFrameLength == nil, "the default is not announced")
        }
    }

    @Test func aReplyLargerThanThePeerAcceptsIsAnErrorReplyAndTheSessionGoesOn() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let (client, host) = InMemoryMessenger.makePair(client: .init(name: "c", maxFrameLength: 100))
            defer { client.close() }
            host.setMessageHandler(onChannel: "big") { _ in [UInt8](repeating: 1, count: 200) }
            host.installAnsweringNow(onChannel: "bigNow") { _ in
                Payload([UInt8](repeating: 1, count: 95))
            }
            host.setMessageHandler(onChannel: "echo") { $0 }
            struct Wordy: Error, CustomStringConvertible {
                var description: String { String(repeating: "é", count: 300) }
            }
            host.setMessageHandler(onChannel: "fails") { _ in throw Wordy() }
            _ = try await host.waitForPeerHello()

            await #expect { try await client.send(onChannel: "big", message: nil) } throws: { error in
                guard let error = error as? MessengerError else { return false }
                return error.code == .handlerFailed && error.channel == "big"
                    && error.message.hasPrefix("REPLY_TOO_LARGE: the reply on channel 'big' has 200 bytes")
            }
            // 95 bytes of payload make a 101-byte frame: one over.
            await #expect { try await client.send(onChannel: "bigNow", message: nil) } throws: { error in
                (error as? MessengerError)?.message.hasPrefix("REPLY_TOO_LARGE") == true
            }
            // A long diagnostic is cut (on a character boundary) so that its frame fits.
            await #expect { try await client.send(onChannel: "fails", message: nil) } throws: { error in
                guard let error = error as? MessengerError else { return false }
                return error.code == .handlerFailed && error.message.utf8.count <= 94
                    && error.message.allSatisfy { $0 == "é" }
            }
            #expect(try await client.send(onChannel: "echo", message: [1, 2]) == [1, 2])
            #expect(client.closeError == nil && host.closeError == nil)
        }
    }
}
