import Glibc

/// Ending the process, for executables (a library never ends the process it runs in).
package enum ProcessExit {
    /// Ends the process with `status` after flushing stdio and running exit handlers (`exit`).
    package static func normally(_ status: Int32) -> Never {
        exit(status)
    }

    /// Ends the process at once with `status`, without exit handlers or flushing stdio (`_exit`):
    /// for a second signal when the orderly way hangs.
    package static func immediately(_ status: Int32) -> Never {
        _exit(status)
    }
}
