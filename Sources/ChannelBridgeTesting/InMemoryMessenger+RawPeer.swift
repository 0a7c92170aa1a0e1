public import ChannelBridgeMessenger
import ChannelBridgePlatform

extension InMemoryMessenger {
    /// The hand-driven side of `makeRawPeer(role:options:)`: writes raw bytes to the connection
    /// and records every byte the connection writes back.
    public final class RawPeer: Sendable {
        private struct Recorded {
            var bytes: [UInt8] = []
            var ended = false
        }

        private let connection: MessengerConnection
        private let recorded = Observed(Recorded())

        init(connection: MessengerConnection) {
            self.connection = connection
        }

        /// Delivers `bytes` to the connection as if read from a socket. Do not call concurrently.
        public func send(_ bytes: [UInt8]) {
            connection.receive(bytes)
        }

        /// Encodes `frame` and delivers it. A name longer than the wire allows is cut (see
        /// `FrameEncoder.validate`); to send arbitrary bytes, use `send(_: [UInt8])`.
        public func send(_ frame: Frame) {
            var bytes: [UInt8] = []
            FrameEncoder.encodeValidated(frame, into: &bytes)
            send(bytes)
        }

        /// Reports end of input to the connection, as a socket's end of file would.
        public func sendEnd() {
            connection.receiveEnd()
            connection.deliveriesEnded()
        }

        /// Every byte the connection has written so far.
        public var receivedBytes: [UInt8] { recorded.read { $0.bytes } }

        /// The frames the connection has written so far, decoded.
        public func receivedFrames() throws -> [Frame] {
            try Self.frames(in: receivedBytes)
        }

        /// Waits until the frames the connection has written satisfy `condition` (checked each time
        /// it writes or closes, not by polling), and returns them; returns early, with what was
        /// written, if the connection closes first or the waiting task is cancelled (a hang guard).
        ///
        /// ```swift
        /// let frames = await peer.waitForFrames { $0.contains { if case .goodbye = $0 { true } else { false } } }
        /// ```
        @discardableResult
        public func waitForFrames(until condition: @escaping @Sendable ([Frame]) -> Bool) async -> [Frame] {
            await recorded.wait { recorded in
                recorded.ended || ((try? Self.frames(in: recorded.bytes)).map(condition) ?? false)
            }
            return (try? receivedFrames()) ?? []
        }

        /// Waits until the connection has closed its transport (or the waiting task is cancelled).
        public func waitUntilClosed() async {
            await recorded.wait { $0.ended }
        }

        /// True once the connection has closed its transport.
        public var isClosed: Bool { recorded.read { $0.ended } }

        func record(_ bytes: [UInt8]) {
            recorded.update { $0.bytes.append(contentsOf: bytes) }
        }

        func recordEnd() {
            recorded.update { $0.ended = true }
        }

        private static func frames(in bytes: [UInt8]) throws -> [Frame] {
            var decoder = FrameDecoder(maxFrameLength: Int(UInt32.max))
            decoder.append(bytes)
            var frames: [Frame] = []
            while let frame = try decoder.next() { frames.append(frame) }
            return frames
        }
    }
}
