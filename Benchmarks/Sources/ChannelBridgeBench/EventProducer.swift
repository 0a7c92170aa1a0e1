import ChannelBridge
import Synchronization

/// Streams `count` events of `size` bytes from a task of its own, as fast as the listener takes
/// them (`EventSink.send` waits while the connection is over its high-water mark).
final class EventProducer: StreamHandler {
    private let producer = Mutex<Task<Void, Never>?>(nil)

    func onListen(arguments: StandardValue, events: EventSink) async throws {
        guard let count = arguments["count"]?.intValue, let size = arguments["size"]?.intValue,
            count >= 0, size >= 0
        else {
            throw MethodError(code: "INVALID_ARGUMENTS", message: "listen needs {\"count\": N, \"size\": S}")
        }
        let event = StandardValue.uint8List([UInt8](repeating: 0xA5, count: size))
        let task = Task {
            for _ in 0..<count {
                guard await events.send(event) else { return }
            }
            events.endOfStream()
        }
        producer.withLock { $0 = task }
    }

    func onCancel(arguments: StandardValue) async throws {
        // Cancelled after unlocking: cancelling runs the task's cancellation handlers on this thread.
        let task = producer.withLock { producer in
            defer { producer = nil }
            return producer
        }
        task?.cancel()
    }
}
