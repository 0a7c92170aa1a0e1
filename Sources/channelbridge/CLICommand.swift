/// One `channelbridge` subcommand.
protocol CLICommand: Sendable {
    static var name: String { get }
    static var summary: String { get }
    /// Returns the process exit status.
    static func run(_ arguments: [String]) async throws -> Int32
}

/// Exit statuses, following sysexits(3) where they apply.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    /// EX_TEMPFAIL: the host did not answer in time (stopped or overloaded); trying later may work.
    static let temporaryFailure: Int32 = 75
}

/// The command line was wrong: reported with the command's name and exit status 64, followed by
/// a line pointing at `--help` unless the message itself says what to do.
struct UsageError: Error {
    var message: String
    /// The message already says what to do (a suggestion): it is the whole report, one line.
    var saysWhatToDo: Bool
    init(_ message: String, saysWhatToDo: Bool = false) {
        self.message = message
        self.saysWhatToDo = saysWhatToDo
    }
}

/// A command failed in a way that has its own exit status (a remote error, bad input data, an
/// unreachable host); `message` goes to stderr after the command's name.
struct CommandFailure: Error {
    var status: Int32
    var message: String
    init(_ status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }
}
