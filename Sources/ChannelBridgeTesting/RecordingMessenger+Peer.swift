import ChannelBridgeBytes
import ChannelBridgeMessenger

/// Scripting the pretend peer: how it answers this side's requests, and what it delivers to this
/// side's handlers.
extension RecordingMessenger {
    /// Replaces the script that answers this side's requests (`nil`: null replies).
    public func setResponder(_ responder: Responder?) {
        state.update { $0.responder = responder }
    }

    /// Answers this side's requests with this side's own handlers, as if the peer mirrored them.
    /// A handler that throws fails the request with `MessengerError.handlerFailed`, as on a real
    /// connection.
    public func loopBack() {
        setResponder { [unowned self] channel, message in
            do {
                return try await deliver(onChannel: channel, message: message)
            } catch let error as MessengerError {
                throw error
            } catch {
                throw MessengerError(.handlerFailed, String(describing: error), channel: channel)
            }
        }
    }

    /// Delivers a request from the pretend peer to the handler on `channel` and returns its reply
    /// (`nil` for a null reply, or when no handler is installed). Rethrows what the handler throws.
    @discardableResult
    public func deliver(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        guard let handler = state.read({ $0.handlers[channel]?.handler }) else {
            record(.handlerReply(channel: channel, reply: nil))
            return nil
        }
        do {
            let answer = try await handler(message)
            let reply = answer.reply?.array
            record(.handlerReply(channel: channel, reply: reply))
            // Work for after the reply (an event stream's first events) runs once it is recorded,
            // as a real messenger runs it once the reply is queued.
            answer.afterReply?()
            return reply
        } catch {
            record(.handlerFailure(channel: channel, error: String(describing: error)))
            throw error
        }
    }

    /// Delivers a one-way message from the pretend peer to the handler on `channel`; its reply is
    /// dropped, as a real messenger drops it.
    public func deliverMessage(onChannel channel: String, message: [UInt8]?) async {
        guard let handler = state.read({ $0.handlers[channel]?.handler }) else { return }
        (try? await handler(message))?.afterReply?()
    }
}
