import ChannelBridgePlatform

/// Ties a change stream's queue to the stream's life: ended (and unsubscribed) once, when the
/// consumer's task is cancelled, when the queue finishes, or when the stream is released.
final class ChangeStreamSubscription<Item: Sendable>: Sendable {
    let queue: ChangeQueue<Item>
    private let onEnd: LockedValue<(@Sendable () -> Void)?>

    init(queue: ChangeQueue<Item>, onEnd: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.onEnd = LockedValue(onEnd)
    }

    func end() {
        let onEnd = onEnd.withLock { onEnd in
            defer { onEnd = nil }
            return onEnd
        }
        onEnd?()
    }

    deinit {
        end()
    }
}
