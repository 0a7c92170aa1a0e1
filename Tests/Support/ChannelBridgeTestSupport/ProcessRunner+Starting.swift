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
    public static func start(_ process: Process) throws {
        try starting.withLock { _ in try process.run() }
    }

    private static let starting = LockedValue(())
}
