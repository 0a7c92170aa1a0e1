import Synchronization

/// Work to run right after the reply of the handler now running has been queued for writing.
///
/// A messenger that supports it sets `AfterReply.current` while it runs a handler for a request
/// and calls `run()` once it has queued that handler's reply. An event channel's owner uses it to
/// send the `listen` reply before the stream's first event, as the wire protocol requires.
///
/// This belongs in the messenger module (the socket messenger cannot see this one); it lives here,
/// at `package` visibility, until it moves there.
package final class AfterReply: Sendable {
    @TaskLocal package static var current: AfterReply?

    /// The channel whose handler this hook belongs to; a hook inherited from an unrelated handler
    /// must not be used.
    package let channel: String
    private let state = Mutex<(ran: Bool, work: [@Sendable () -> Void])>((false, []))

    package init(channel: String) {
        self.channel = channel
    }

    /// Schedules `work` after the reply; runs it at once if the reply is already queued.
    package func append(_ work: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.ran { return true }
            state.work.append(work)
            return false
        }
        if runNow { work() }
    }

    /// Called by the messenger once the reply is queued. Runs the scheduled work in order.
    package func run() {
        let work = state.withLock { state -> [@Sendable () -> Void] in
            state.ran = true
            defer { state.work = [] }
            return state.work
        }
        for item in work { item() }
    }
}

extension AfterReply {
    /// Runs `work` after the current handler's reply on `channel` is queued when the messenger
    /// supports that; otherwise as soon as possible on another task, after giving the messenger's
    /// task a chance to queue the reply.
    static func schedule(on channel: String, _ work: @escaping @Sendable () -> Void) {
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
