import ChannelBridgePlatform

/// Work to run right after the reply of the handler now running has been queued for writing.
///
/// A messenger sets `AfterReply.current` while it runs a handler for a request and calls `run()`
/// once it has queued that handler's reply. An event channel's owner uses it to send the `listen`
/// reply before the stream's first event, and the extension host to answer the call that ended
/// the request before its GOODBYE, as the wire protocol requires.
///
/// ```swift
/// if let hook = AfterReply.current, hook.channel == channel { hook.append { startStreaming() } }
/// ```
public final class AfterReply: Sendable {
    @TaskLocal public static var current: AfterReply?

    /// The channel whose handler this hook belongs to; a hook inherited from an unrelated handler
    /// must not be used.
    public let channel: String
    private let state = LockedValue<(ran: Bool, work: [@Sendable () -> Void])>((false, []))

    public init(channel: String) {
        self.channel = channel
    }

    /// Schedules `work` after the reply; runs it at once if the reply is already queued.
    public func append(_ work: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.ran { return true }
            state.work.append(work)
            return false
        }
        if runNow { work() }
    }

    /// Called by the messenger once the reply is queued. Runs the scheduled work in order.
    public func run() {
        let work = state.withLock { state -> [@Sendable () -> Void] in
            state.ran = true
            defer { state.work = [] }
            return state.work
        }
        for item in work { item() }
    }
}

extension AfterReply {
    /// Runs `work` after the current handler's reply on `channel` is queued. Without a hook for
    /// that channel (a handler called directly, not by a messenger), it runs on another task, after
    /// giving the caller a chance to finish.
    public static func schedule(on channel: String, _ work: @escaping @Sendable () -> Void) {
        if let hook = AfterReply.current, hook.channel == channel {
            hook.append(work)
        } else {
            Task {
                await Task.yield()
                work()
            }
        }
    }
}
