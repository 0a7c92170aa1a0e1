import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// Answers `listen` and `cancel` for one installed `StreamHandler` on one messenger, and keeps its
/// one active stream. Every change of stream runs on a serial queue, so handler calls never overlap
/// and happen in the order the requests arrived.
final class EventStreamOwner: CloseObserver {
    private struct ActiveStream {
        let sink: EventSinkCore
        let arguments: StandardValue
    }

    private struct State {
        var active: ActiveStream?
        /// The handler was replaced or removed; late requests are answered as if it were gone.
        var retired = false
    }

    let channel: String
    private let messenger: any BinaryMessenger
    private let codec: any MethodCodec
    private let handler: any StreamHandler
    private let maxBufferedBytes: Int
    private let queue = SerialQueue()
    private let state = LockedValue(State())

    init(
        channel: String, messenger: any BinaryMessenger, codec: any MethodCodec, handler: any StreamHandler,
        maxBufferedBytes: Int = EventSinkCore.defaultMaxBufferedBytes
    ) {
        self.channel = channel
        self.messenger = messenger
        self.codec = codec
        self.handler = handler
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// The messenger handler for the channel.
    func handle(_ message: [UInt8]?) async throws -> HandlerReply {
        let call: MethodCall
        do throws(CodecError) {
            guard let message else { throw CodecError(.invalidMethodCall, "method call payload is null") }
            call = try codec.decodeMethodCall(message)
        } catch {
            return HandlerReply(
                Payload(
                    try MethodChannel.encodeError(
                        MethodError(code: "malformed", message: error.description), codec: codec)))
        }
        switch call.method {
        case "listen":
            let (reply, sink) = await queue.run { await self.listen(call.arguments) }
            // Events sent so far are held back until the messenger has queued this reply: it
            // opens the sink after that (`HandlerReply.afterReply`).
            let bytes = try reply.get().map { Payload($0) }
            guard let sink else { return HandlerReply(bytes) }
            return HandlerReply(bytes, afterReply: { sink.open() })
        case "cancel":
            return HandlerReply(
                try await queue.run { await self.cancel(call.arguments) }.get().map { Payload($0) })
        default:
            return HandlerReply(nil)
        }
    }

    private func listen(_ arguments: StandardValue) async -> (Result<[UInt8]?, any Error>, EventSinkCore?) {
        let (retired, previous) = state.withLock { state in
            defer { state.active = nil }
            return (state.retired, state.active)
        }
        if retired { return (.success(nil), nil) }
        if let previous {
            previous.sink.close()
            try? await handler.onCancel(arguments: previous.arguments)
        }
        let sink = EventSinkCore(
            channel: channel, messenger: messenger, codec: codec, maxBufferedBytes: maxBufferedBytes,
            overflowed: { [weak self] sink in self?.overflowed(sink) })
        state.withLock { $0.active = ActiveStream(sink: sink, arguments: arguments) }
        do {
            try await handler.onListen(arguments: arguments, events: EventSink(core: sink))
        } catch {
            state.withLock { state in
                if state.active?.sink === sink { state.active = nil }
            }
            sink.close()
            return (Result { try MethodChannel.encodeError(Self.methodError(error), codec: codec) }, nil)
        }
        return (Result { try codec.encodeSuccessEnvelope(.null) }, sink)
    }

    private func cancel(_ arguments: StandardValue) async -> Result<[UInt8]?, any Error> {
        guard let current = takeActive() else {
            return Result {
                try MethodChannel.encodeError(
                    MethodError(code: "error", message: "No active stream to cancel"), codec: codec)
            }
        }
        current.sink.close()
        do {
            try await handler.onCancel(arguments: arguments)
        } catch {
            return Result { try MethodChannel.encodeError(Self.methodError(error), codec: codec) }
        }
        return Result { try codec.encodeSuccessEnvelope(.null) }
    }

    /// The connection ended: cancel the active stream.
    func connectionClosed(_ error: MessengerError) {
        queue.submit {
            guard let current = self.takeActive() else { return }
            current.sink.close()
            try? await self.handler.onCancel(arguments: current.arguments)
        }
    }

    /// The stream's listener fell too far behind and its sink ended the stream: cancel it, as if
    /// the listener had (it may never say so, if it does not read).
    private func overflowed(_ sink: EventSinkCore) {
        queue.submit {
            let current = self.state.withLock { state -> ActiveStream? in
                guard let active = state.active, active.sink === sink else { return nil }
                state.active = nil
                return active
            }
            guard let current else { return }
            try? await self.handler.onCancel(arguments: current.arguments)
        }
    }

    /// The handler was replaced or removed: end the active stream for its listener and cancel it.
    func retire() {
        CloseObservers.shared.remove(self, for: messenger)
        queue.submit {
            // Marked on the queue so that a listen that arrived before the replacement still runs
            // (and is then cancelled here), while later ones see the handler gone.
            let current = self.state.withLock { state in
                defer { state.active = nil }
                state.retired = true
                return state.active
            }
            guard let current else { return }
            current.sink.close(endingStream: true)
            try? await self.handler.onCancel(arguments: current.arguments)
        }
    }

    private func takeActive() -> ActiveStream? {
        state.withLock { state in
            defer { state.active = nil }
            return state.active
        }
    }

    private static func methodError(_ error: any Error) -> MethodError {
        (error as? MethodError) ?? MethodError(code: "error", message: String(describing: error))
    }
}
