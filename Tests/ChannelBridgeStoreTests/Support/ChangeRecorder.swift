import ChannelBridgeStore
import ChannelBridgeTestSupport

/// Consumes a change stream in a task and collects what it yields.
struct ChangeRecorder: Sendable {
    let changes: Collector<StoreChange>
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<StoreChange>, name: String = "change stream") {
        let changes = Collector<StoreChange>(name: name)
        self.changes = changes
        task = Task {
            for await change in stream { changes.append(change) }
            changes.finish()
        }
    }

    /// Ends the stream (its `onTermination` unregisters it from the store).
    func stop() {
        task.cancel()
    }
}
