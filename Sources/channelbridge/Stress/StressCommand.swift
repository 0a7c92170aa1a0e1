import Foundation

/// `channelbridge stress [scenario ...] [--scale F] [--json]`: the flow-control scenarios of
/// Protocol/wire-protocol.md §4.10 against a real `extension-host` child process, each figure
/// printed as it is measured. Memory and counts are what to compare; times depend on the machine.
enum StressCommand: CLICommand {
    static let name = "stress"
    static let summary = "misbehaving peers against a real host: memory, threads, refusals"

    struct Scenario: Sendable {
        var name: String
        var summary: String
        var run: @Sendable (StressSettings, StressReport) async throws -> Void
        /// Whether it runs when no scenario is named.
        var runsByDefault = true
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "unread-replies",
            summary: "a client pipelines getString of a 32 KiB value for 20 s and\n"
                + "              never reads; a second client calls meanwhile", run: UnreadRepliesScenario.run),
        Scenario(
            name: "unread-events",
            summary: "a listener never reads while 256 KiB values are written for\n"
                + "              20 s; a second listener reads", run: UnreadEventsScenario.run),
        Scenario(
            name: "vanish",
            summary: "3,000 pipelined setString, then the client closes without\n"
                + "              reading; how long the store goes on changing", run: VanishScenario.run),
        Scenario(
            name: "idle-connections",
            summary: "1,000 connections at once that never say HELLO: answered or\n"
                + "              refused, memory, threads, HELLO timeout", run: IdleConnectionsScenario.run),
        Scenario(
            name: "dribble",
            summary: "the connection limit + 2 peers say HELLO, then send a frame a\n"
                + "              byte every 100 ms: refused, cut by a 1 s --frame-timeout,\n"
                + "              time until a new client is served", run: DribbleScenario.run),
        Scenario(
            name: "pipelined-order",
            summary: "one session, 1,000 rounds of calls with 4-16 in flight (sets,\n"
                + "              removes, appends, takes, removeAll, reads between): every\n"
                + "              read and take as a sequential model says, no stale key",
            run: { try await PipelinedOrderScenario.run(settings: $0, report: $1) }),
        Scenario(
            name: "many-clients", summary: "100 clients × 1,000 echo calls, every reply checked",
            run: ManyClientsScenario.run),
        Scenario(
            name: "large-requests",
            summary: "appendToList of 50 M nulls, 1 M strings, 1 M ints: host peak\n"
                + "              memory per byte of the call; 20 clients at once each sending\n"
                + "              50 M nulls, then 250 k strings under a 16 MiB request budget.\n"
                + "              Only when named (about 2 GB of memory at scale 1)",
            run: LargeRequestsScenario.run, runsByDefault: false),
        Scenario(
            name: "soak",
            summary: "--seconds of everything at once: pipelined writers, readers,\n"
                + "              listeners that cancel or drop their connection, a take racing\n"
                + "              appenders, prefs processes on the data dir; fails on any error,\n"
                + "              stall (a write unanswered for 2 s), lost or duplicated item,\n"
                + "              or growth of the host's descriptors, threads or memory.\n"
                + "              Only when named", run: SoakScenario.run, runsByDefault: false),
        Scenario(
            name: "listeners-cancel",
            summary: "--seconds of 2 pipelined writers while 4 listeners cancel\n"
                + "              their change streams; fails on any error or a write\n"
                + "              unanswered for 1 s. Only when named",
            run: ListenerChurnScenario.run(dropping: false), runsByDefault: false),
        Scenario(
            name: "listeners-drop",
            summary: "the same, with listeners dropping their connection while\n"
                + "              listening (GOODBYE or nothing said). Only when named",
            run: ListenerChurnScenario.run(dropping: true), runsByDefault: false),
        Scenario(
            name: "crashing-sessions",
            summary: "isolation-test-host --isolation session: 100 sessions, one after\n"
                + "              another, each trapping (SIGABRT), while 10 clients call and\n"
                + "              listen; their errors and longest gap, the GOODBYEs, the\n"
                + "              workers and zombies left. Only when named",
            run: CrashingSessionsScenario.run, runsByDefault: false),
        Scenario(
            name: "crashing-pigeon-sessions",
            summary: "the same 100 trapping sessions against pigeon-host-example (Pigeon's\n"
                + "              generated Swift, isolated by default): each sends [\"x\", 1] to add,\n"
                + "              which declares two ints; 10 clients call add and listen.\n"
                + "              Only when named",
            run: CrashingSessionsScenario.runPigeon, runsByDefault: false),
    ]

    /// The scenarios that run for `--seconds`.
    static let timedScenarios: Set<String> = ["soak", "listeners-cancel", "listeners-drop"]

    static let help = """
        usage: channelbridge stress [scenario ...] [--scale F] [--seconds N] [--seed N] [--json]
               channelbridge stress connect --socket PATH [--connections N] [--spacing MS] [--json]

        Runs each scenario against a fresh extension-host child process (built beside channelbridge)
        and prints its figures. The host keeps its default limits (Protocol/wire-protocol.md §4.10).

        'channelbridge stress connect' times new connections to a host already running
        ('channelbridge stress connect --help').

        Scenarios (all of them but soak and listeners-* when none is named):
        \(scenarios.map { "  " + $0.name.padded(18) + $0.summary }.joined(separator: "\n"))

        Options:
          --scale F   multiply every duration and count by F (default 1); below 1 the host's HELLO
                      timeout is scaled too. e.g. --scale 0.01 runs everything in a few seconds
          --seconds N how long soak and listeners-* run (default 60; they ignore --scale). Only
                      with one of them named.
                      soak samples the host's RSS, descriptors and threads every second and prints
                      their least-squares slopes per minute after the first minute (the first sixth
                      of a run under 360 s); descriptors or threads growing fails a run of 60 s or
                      more, memory growing 0.1 MB/min or more fails a run of 600 s or more
          --seed N    the seed of pipelined-order's calls (default: a random one, printed when it
                      fails)
          --json      print {"<scenario>": {"<figure>": value, ...}, ...} at the end (also when a
                      scenario fails)

        Build in release mode for meaningful figures:
          swift run -c release channelbridge stress
          swift run -c release channelbridge stress soak --seconds 600
          swift run -c release channelbridge stress listeners-cancel listeners-drop --seconds 60
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        if arguments.first == "connect" { return try await connect(Array(arguments.dropFirst())) }
        let args = try Arguments(arguments, valued: ["scale", "seconds", "seed"], flags: ["json"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard let scale = Double(args.value("scale") ?? "1"), scale > 0, scale.isFinite else {
            throw UsageError("--scale takes a positive number")
        }
        var chosen: [Scenario] = []
        for name in args.positionals {
            guard let scenario = scenarios.first(where: { $0.name == name }) else {
                throw UsageError("unknown scenario '\(name)'; known: \(scenarios.map(\.name).joined(separator: ", "))")
            }
            if !chosen.contains(where: { $0.name == name }) { chosen.append(scenario) }
        }
        if chosen.isEmpty { chosen = scenarios.filter(\.runsByDefault) }
        var settings = StressSettings(scale: scale)
        if let seconds = args.value("seconds") {
            guard chosen.contains(where: { timedScenarios.contains($0.name) }) else {
                throw UsageError("--seconds goes with soak, listeners-cancel or listeners-drop")
            }
            guard let value = Double(seconds), value > 0, value.isFinite else {
                throw UsageError("--seconds takes a positive number")
            }
            settings.soakSeconds = value
        }
        if let seed = args.value("seed") {
            guard let value = UInt64(seed) else { throw UsageError("--seed takes a whole number") }
            settings.seed = value
        }
        let json = args.flag("json")
        let report = StressReport(printsLines: !json)
        do {
            for scenario in chosen {
                report.begin(scenario.name)
                try await scenario.run(settings, report)
            }
        } catch {
            // The figures measured until the failure are what tells it apart.
            if json { Output.line(report.json()) }
            throw error
        }
        if json { Output.line(report.json()) }
        return ExitCode.success
    }
}

/// How big a stress run is.
struct StressSettings: Sendable {
    var scale: Double
    /// How long `soak` and `listeners-*` run.
    var soakSeconds: Double = 60
    var seed: UInt64?

    func seconds(_ base: Double) -> Double { max(0.2, base * scale) }

    func count(_ base: Int, minimum: Int = 1) -> Int { max(minimum, Int((Double(base) * scale).rounded())) }

    /// The host's `--hello-timeout` for a scaled-down run; nil keeps its default (5 s).
    var helloTimeoutOption: String? { scale < 1 ? String(max(0.3, 5 * scale)) : nil }
}

/// The figures of a run, printed as they come (`scenario  figure  value`) and kept for `--json`.
// Invariant: used by one task at a time (scenarios run one after another).
final class StressReport: @unchecked Sendable {
    private var scenarios: [(name: String, figures: [(String, Double)])] = []
    private let printsLines: Bool

    init(printsLines: Bool) {
        self.printsLines = printsLines
    }

    func begin(_ scenario: String) {
        scenarios.append((scenario, []))
    }

    func figure(_ name: String, _ value: Double, _ note: String = "") {
        scenarios[scenarios.count - 1].figures.append((name, value))
        guard printsLines else { return }
        let scenario = scenarios[scenarios.count - 1].name
        let shown = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.2f", value)
        Output.line(scenario.padded(18) + name.padded(34) + shown.padded(12) + note)
        Output.flush()
    }

    func figure(_ name: String, _ value: Int, _ note: String = "") {
        figure(name, Double(value), note)
    }

    func json() -> String {
        let body = scenarios.map { scenario in
            "\"\(scenario.name)\":{"
                + scenario.figures.map { "\"\($0.0)\":\($0.1.isFinite ? String($0.1) : "null")" }
                .joined(separator: ",") + "}"
        }
        return "{" + body.joined(separator: ",") + "}"
    }
}
