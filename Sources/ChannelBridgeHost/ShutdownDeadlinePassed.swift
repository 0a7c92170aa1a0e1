package import ChannelBridgeCodec

/// What was still unfinished when the shutdown deadline (`HostOptions.shutdownTimeout`) passed and
/// the host ended without it: the record's `shutdownDeadlinePassed` member.
///
/// ```
/// "shutdownDeadlinePassed":{"seconds":5,"unfinishedCalls":1,"openSessions":1}
/// ```
///
/// An unfinished call was never acknowledged, so its client never saw it succeed; a store write
/// among them may or may not be in the store, and every write that was acknowledged is.
package struct ShutdownDeadlinePassed: Sendable, Hashable {
    /// The shutdown timeout that passed.
    package var timeout: Duration
    /// Requests of the open sessions whose replies were still owed when it passed.
    package var unfinishedCalls: Int
    /// Sessions not yet closed when it passed (each was sent GOODBYE `shuttingDown`).
    package var openSessions: Int

    package init(timeout: Duration, unfinishedCalls: Int, openSessions: Int) {
        self.timeout = timeout
        self.unfinishedCalls = unfinishedCalls
        self.openSessions = openSessions
    }

    package var json: JSONValue {
        .object([
            .init("seconds", .number(ExtensionHost.seconds(timeout))),
            .init("unfinishedCalls", .number(String(unfinishedCalls))),
            .init("openSessions", .number(String(openSessions))),
        ])
    }

    /// The line the host writes on standard error as it ends without them.
    var diagnostic: String {
        "extension-host: the shutdown deadline of \(ExtensionHost.seconds(timeout)) s passed with "
            + "\(Self.count(unfinishedCalls, "call")) unfinished in \(Self.count(openSessions, "open session")); "
            + "ending without them (no acknowledged write is lost)"
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
