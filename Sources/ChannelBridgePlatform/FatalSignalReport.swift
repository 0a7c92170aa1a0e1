import CChannelBridgeSyscalls

/// What the process prints when a fatal signal ends it in a channel handler: a process-wide
/// policy, installed by executables (a library never installs signal handlers of its own).
///
/// For SIGILL and SIGTRAP (Swift's traps: a force unwrap of `nil`, an index out of range), SIGABRT
/// (a failed `as!`, `fatalError` in some builds), SIGBUS, SIGFPE and SIGSEGV, the handler installed
/// before runs first (Swift's backtracer prints the crashed thread), then, when the signal came on
/// a thread with a `RunningHandler` recorded, one line goes to standard error:
///
///     PROGRAM: fatal signal SIGILL in the handler of method 'add' on channel 'example/notes'
///     PROGRAM: fatal signal SIGABRT in the handler of channel 'dev.flutter.pigeon.app.Api.add'
///
/// (the second for a message handler, which has no method), and the process ends by the signal,
/// with its default action. The handler is async-signal-safe: it writes with `write(2)` only.
package enum FatalSignalReport {
    private static let installation: Int32 = cb_install_fatal_signal_report()

    /// Installs the report for the process; later calls do nothing.
    package static func install() {
        _ = installation
    }
}
