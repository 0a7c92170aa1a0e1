/// How an extension request ended; each outcome has its exit status.
///
/// | outcome | how | exit status |
/// |---|---|---|
/// | `completed` | a client called `exit` or `completeRequest` | 0 |
/// | `cancelled` | a client called `cancel` | 2 |
/// | `expired` | `--deadline` passed first | 3 |
/// | `interrupted` | SIGINT / SIGTERM | 130 / 143 |
public enum HostOutcome: Sendable, Hashable, CustomStringConvertible {
    case completed
    case cancelled
    case expired
    case interrupted(HostSignal)

    /// The name in the completion record.
    package var name: String {
        switch self {
        case .completed: "completed"
        case .cancelled: "cancelled"
        case .expired: "expired"
        case .interrupted: "interrupted"
        }
    }

    package var exitStatus: Int32 {
        switch self {
        case .completed: 0
        case .cancelled: 2
        case .expired: 3
        case .interrupted(let signal): signal.exitStatus
        }
    }

    /// The outcome's name, with the signal's for `interrupted`: `interrupted (SIGTERM)`.
    public var description: String {
        if case .interrupted(let signal) = self { return "interrupted (\(signal.name))" }
        return name
    }
}

/// The signals that interrupt a host. The executable watches them (`HostSignal.watch`) and turns
/// the first into cancellation of the task running `ExtensionHost.run()`
/// (`ExtensionHostCommand.main` does this); `ExtensionHost.interrupt(_:)` ends the request the
/// same way without cancelling anything.
public enum HostSignal: Sendable, Hashable, CaseIterable {
    case sigint
    case sigterm

    /// `SIGINT` / `SIGTERM`, as the completion record's error code.
    package var name: String {
        switch self {
        case .sigint: "SIGINT"
        case .sigterm: "SIGTERM"
        }
    }

    /// The signal number on Linux.
    package var number: Int32 {
        switch self {
        case .sigint: 2
        case .sigterm: 15
        }
    }

    /// 128 + the signal number, as shells report a process ended by that signal.
    package var exitStatus: Int32 { 128 + number }
}
