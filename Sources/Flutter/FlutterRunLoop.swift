import ChannelBridgePlatform
import Dispatch
import Foundation

/// The process's main run loop, which a host of Flutter-style plugins runs on its main thread as
/// an iOS app does (`UIApplicationMain`): engines run their handlers there
/// (`FlutterEngine.PlatformThread.main`), timers scheduled on it fire, and it drains
/// `DispatchQueue.main`, so the main actor is the main thread.
///
/// An executable with asynchronous top-level code does not run it: Swift parks the main thread
/// (`dispatchMain()`) and a dispatch worker thread serves the main queue, so handlers still run,
/// in order, but not on the main thread, and `Timer`s scheduled from them never fire. A host's top-level code is therefore
/// synchronous and hands its asynchronous work to `runMain`:
///
/// ```swift
/// import Flutter
///
/// let status = FlutterRunLoop.runMain {
///     await ExtensionHostCommand.main(arguments: arguments, interruptions: interruptions, plugins: plugins)
/// }
/// exit(status)
/// ```
public enum FlutterRunLoop {
    /// Runs the main run loop on the main thread while `body` runs (as a task, off the main
    /// thread), and returns what `body` returns once it has.
    ///
    /// Call it on the main thread, from synchronous code, once: a call from another thread stops
    /// the process with a message saying so, as the main run loop can only run on the main thread.
    public static func runMain<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
        guard Thread.isMainThread else {
            fatalError("FlutterRunLoop.runMain was called off the main thread; call it from synchronous top-level code")
        }
        let outcome = LockedValue<Result?>(nil)
        Task.detached {
            let result = await body()
            outcome.withLock { $0 = result }
            // Wakes the run loop, which returns once it has served the main queue.
            DispatchQueue.main.async {}
        }
        while true {
            if let result = outcome.withLock({ $0 }) { return result }
            _ = RunLoop.main.run(mode: .default, before: .distantFuture)
        }
    }

    /// Whether the main thread serves the main queue, as seen from work on the main queue:
    /// reported once per process when it does not.
    static func noteMainQueueWork() {
        guard !Thread.isMainThread,
            reported.withLock({ reported in
                defer { reported = true }; return !reported
            })
        else {
            return
        }
        FlutterLog.warning(
            "FlutterEngine: a handler runs on the main queue but not on the main thread: the process does not "
                + "run its main run loop, so timers scheduled from handlers do not fire and Thread.isMainThread "
                + "is false; run the host's work in FlutterRunLoop.runMain (Protocol/flutter-embedder.md, section 5)")
    }

    private static let reported = LockedValue(false)
}
