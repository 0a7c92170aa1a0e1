/// How many idle workers an isolated host keeps ready (Protocol/extension-host.md §1.8): `minimum`
/// at rest; doubled, up to `maximum`, each time a connection finds no idle worker that has
/// started (it then waits for one to start); halved back toward `minimum` after each `shrinkAfter`
/// in which no connection found the pool short.
///
/// A connection that finds the pool short waits for a worker's start (a process start, dynamic
/// loading, the runtime's and the plugins' start-up): the pool grows so that, while connections
/// keep arriving faster than one worker starts, the next ones find a started worker. An idle
/// worker costs its resident memory, so the pool shrinks once the burst is over.
struct WorkerIdlePolicy: Sendable {
    static let minimum = 2
    static let maximum = 8
    static let shrinkAfter: Duration = .seconds(5)

    /// How many idle workers to keep now.
    private(set) var target = Self.minimum
    /// The last shortage or shrink: the next shrink is `shrinkAfter` later.
    private var quietSince: ContinuousClock.Instant

    init(now: ContinuousClock.Instant = .now) {
        quietSince = now
    }

    /// A connection found no started idle worker.
    mutating func shortage(at now: ContinuousClock.Instant) {
        target = min(Self.maximum, target * 2)
        quietSince = now
    }

    /// Halves the target toward `minimum` when `shrinkAfter` has passed since the last shortage
    /// or shrink.
    mutating func shrinkIfQuiet(at now: ContinuousClock.Instant) {
        guard target > Self.minimum, now - quietSince >= Self.shrinkAfter else { return }
        target = max(Self.minimum, target / 2)
        quietSince = now
    }
}
