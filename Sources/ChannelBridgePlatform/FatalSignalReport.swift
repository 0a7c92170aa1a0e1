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

    /// Makes this process an isolated session's worker for the report (Protocol/extension-host.md
    /// §1.8): `sessionSocket` is the client's connection, whose frames are then counted as they
    /// are sent, and `reportSocket` the host's hand-off socket. A fatal signal then also sends the
    /// client GOODBYE `sessionCrashed` naming the signal and the running handler, unless a frame
    /// is partly written (the client then sees end of file alone), and writes `died by SIGNAME[ in
    /// the handler of ...]` on `reportSocket`. Call it once, before the session's connection
    /// exists.
    package static func guardSession(socket sessionSocket: Int32, reportingTo reportSocket: Int32) {
        cb_guard_session_socket(sessionSocket, reportSocket)
    }

    /// Whether a fatal signal's report has begun for the guarded session (`guardSession`): the
    /// process is dying by that signal, and nothing else may end it first (an exit with status 0
    /// would hide the crash from the host).
    package static var sessionIsCrashing: Bool { cb_session_crashing() != 0 }
}
