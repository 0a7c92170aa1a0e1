import ChannelBridgePlatform
public import Foundation

extension ProcessRunner {
    /// Starts `process`, one start at a time in this test process. Every child a test starts goes
    /// through here.
    ///
    /// On Linux, `Process.run()` makes a socket pair whose one end the child keeps (its closing tells
    /// Foundation that the child has exited), and in the child it closes only the descriptors that
    /// were open when it looked. A child that another test starts at that moment inherits the end too
    /// and holds it for its whole life, so `waitUntilExit()` and the termination handler of the first
    /// child wait for the second to exit: a host serving another test, possibly never. Starting
    /// children one at a time closes that window.
    ///
    /// ```swift
    /// let process = Process()
    /// process.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge"))
    /// try ProcessRunner.start(process)
    /// ```
    ///
    /// Once the child has exited, `process` lets go of its termination handler and standard
    /// streams. Foundation's `Process` on Linux never frees itself (its run-loop source holds it),
    /// so whatever it still refers to leaks with it: LeakSanitizer found the handlers, the objects
    /// they capture (a `HostProcess`, a `StorePeer`'s collectors) and the pipes of every child.
    public static func start(_ process: Process) throws {
        // A child that exits before reading all of its input must not take the test process down
        // with SIGPIPE when a writer thread feeds it (seen once in CI); the write fails instead.
        _ = brokenPipesIgnored
        let handler = process.terminationHandler
        process.terminationHandler = { process in
            handler?(process)
            process.terminationHandler = nil
            process.standardInput = nil
            process.standardOutput = nil
            process.standardError = nil
        }
        try starting.withLock { started in
            try process.run()
            started += 1
        }
    }

    /// Children started so far. Not `()`: ThreadSanitizer took the body's `inout` access to an
    /// empty value for a write at the lock's own address, racing with other threads reading that
    /// object's header on their way to the lock (a "Swift access race" that is none).
    private static let starting = LockedValue(0)

    /// Set once, before the first child starts.
    private static let brokenPipesIgnored: Void = ProcessSignals.ignoreBrokenPipes()
}
