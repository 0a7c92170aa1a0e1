import Dispatch

extension FlutterEngine {
    /// Where an engine's platform executor runs: its handlers without a task queue, its reply
    /// callbacks and its teardown.
    public enum PlatformThread: Sendable, Equatable {
        /// The process's main thread, as on iOS, shared by every engine that chooses it: each
        /// engine's work goes through a serial queue of its own that targets the main dispatch
        /// queue, so it stays in arrival order per session and bounded per engine, and runs on
        /// the main thread when the process runs its main run loop (`FlutterRunLoop.runMain`).
        /// Timers a handler schedules on `RunLoop.current` then fire, `DispatchQueue.main` and
        /// `@MainActor` code run on the same thread, and `Thread.isMainThread` is true. Handlers
        /// of all sessions share that one thread: a slow handler delays every session's.
        case main
        /// A serial queue of the engine's own, on a pool thread: sessions' handlers run
        /// concurrently with each other, but off the main thread, with no run loop running for
        /// them (a timer needs one the handler runs itself).
        case engineQueue
    }
}

extension FlutterEngine.PlatformThread {
    func makeExecutor(label: String, limit: Int) -> SerialExecutor {
        switch self {
        case .main: SerialExecutor(label: label, limit: limit, target: .main, reportsMainThread: true)
        case .engineQueue: SerialExecutor(label: label, limit: limit)
        }
    }
}
