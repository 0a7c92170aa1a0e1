import ChannelBridgePlatform
import Foundation

/// The reply owed for one incoming message: answered exactly once, from any thread.
///
/// The first answer wins; a later one is ignored with a logged warning (iOS drops it silently in
/// release builds and asserts in debug ones). If every reference to it goes away unanswered, the
/// request is answered with a failure naming the channel, so the caller never waits forever
/// (iOS would leave the Dart future pending). Once the request is withdrawn (its connection
/// ended), answers are dropped silently.
final class MessageReply: Sendable {
    enum Outcome: Sendable {
        case bytes([UInt8]?)
        case failure(String)
    }

    private enum State {
        case waiting(CheckedContinuation<[UInt8]?, any Error>?)
        case answered
        case withdrawn
    }

    let channel: String
    private let state: LockedValue<State>

    /// For a request: `continuation` is resumed with the answer. `nil` for a one-way message,
    /// whose answer goes nowhere.
    init(channel: String, continuation: CheckedContinuation<[UInt8]?, any Error>?) {
        self.channel = channel
        self.state = LockedValue(.waiting(continuation))
    }

    deinit {
        let unanswered = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            guard case .waiting(let continuation) = state else { return nil }
            return continuation
        }
        if let unanswered {
            let reason = "the handler on channel '\(channel)' released its reply without answering"
            FlutterLog.warning(reason + "; the caller gets a failure")
            unanswered.resume(throwing: ReplyFailure(reason: reason))
        }
    }

    /// Answers with `bytes` (`nil`: a null reply). Returns `false` when it had been answered.
    @discardableResult
    func send(_ bytes: Data?) -> Bool {
        finish(.bytes(bytes.map { [UInt8]($0) }))
    }

    /// Answers with a failure (REPLY status 2 carrying `reason`).
    @discardableResult
    func fail(_ reason: String) -> Bool {
        finish(.failure(reason))
    }

    /// The connection ended: later answers go nowhere, silently.
    func withdraw() {
        let continuation = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .withdrawn
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    private func finish(_ outcome: Outcome) -> Bool {
        enum Step { case resume(CheckedContinuation<[UInt8]?, any Error>?), duplicate, ignore }
        let step = state.withLock { state -> Step in
            switch state {
            case .waiting(let continuation):
                state = .answered
                return .resume(continuation)
            case .answered: return .duplicate
            case .withdrawn: return .ignore
            }
        }
        switch step {
        case .resume(let continuation):
            switch outcome {
            case .bytes(let bytes): continuation?.resume(returning: bytes)
            case .failure(let reason): continuation?.resume(throwing: ReplyFailure(reason: reason))
            }
            return true
        case .duplicate:
            FlutterLog.warning("A reply on channel '\(channel)' was sent more than once; the later one is ignored")
            return false
        case .ignore:
            return false
        }
    }

    /// The plain Flutter callback for this reply.
    var callback: FlutterBinaryReply {
        { [self] data in send(data) }
    }
}

/// A failed answer: the messenger sends its description as REPLY status 2.
struct ReplyFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
