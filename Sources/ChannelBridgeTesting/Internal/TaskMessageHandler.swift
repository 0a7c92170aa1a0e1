import ChannelBridgeMessenger

/// A handler a test double runs in a task on the message as an array, with work after its reply:
/// how the kit keeps mock handlers and what it makes of the messenger's one handler shape
/// (`HandlerReply(answering:with:)`).
typealias TaskMessageHandler = @Sendable (_ message: [UInt8]?) async throws -> HandlerReply
