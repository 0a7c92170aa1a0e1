import Foundation

extension StressCommand {
    static let connectHelp = """
        usage: channelbridge stress connect --socket PATH [--connections N] [--spacing MS] [--json]

        After 10 untimed connections 50 ms apart (what a host creates on its first sessions is not
        counted as growth), opens N connections (default 1000) to the host already running on
        PATH, one after another, and times each from connect(2) to the whole of the host's HELLO
        frame: what a new client waits before its session is ready. Each connection then says
        HELLO and closes. With --spacing MS the client pauses MS milliseconds after each (default
        0: back to back).

        Prints the time's p50, p90, p99 and max in milliseconds; connections refused (GOODBYE) or
        unanswered; and the host's children (its workers under --isolation session) before, at
        their peak (sampled every 10 ms) and after the loop once they have settled (up to 12 s:
        an isolated host's idle pool shrinks back to 2 within two quiet periods of 5 s), with
        zombies, and the host's open descriptors before and after.

        Options:
          --connections N  how many connections (default 1000)
          --spacing MS     milliseconds between one connection's close and the next connect
                           (default 0)
          --json           print {"connections", "p50_ms", "p90_ms", "p99_ms", "max_ms", "refused",
                           "unanswered", "workers_before", "workers_peak", "workers_after",
                           "zombies_after", "descriptors_before", "descriptors_after"}

        Build in release mode for meaningful figures, e.g.:
          swift build -c release --product channelbridge --product isolation-test-host
        """

    /// `channelbridge stress connect --socket PATH`: the time from connect to the host's HELLO.
    static func connect(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["socket", "connections", "spacing"], flags: ["json"])
        if args.wantsHelp {
            Output.line(connectHelp)
            return ExitCode.success
        }
        guard let path = args.value("socket") else { throw UsageError("connect needs --socket PATH") }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let connections = try Arguments.positiveInt(args.value("connections") ?? "1000", "--connections")
        guard let spacing = Double(args.value("spacing") ?? "0"), spacing >= 0, spacing <= 60_000 else {
            throw UsageError("--spacing takes milliseconds from 0 to 60000")
        }
        let measurement = ConnectLatency(
            path: path, connections: connections, spacing: .microseconds(Int64(spacing * 1000)))
        let result: ConnectLatency.Result
        do {
            result = try await ChildProcess.onThread("cb stress connect") { try measurement.run() }
        } catch let failure as ConnectLatency.Failure {
            Output.error("channelbridge stress connect: \(failure.description)")
            return ExitCode.unavailable
        } catch let failure as RawPeer.Failure {
            Output.error("channelbridge stress connect: \(failure.description)")
            return ExitCode.unavailable
        }
        let times = result.milliseconds
        let p50 = ConnectLatency.percentile(times, 0.5), p90 = ConnectLatency.percentile(times, 0.9)
        let p99 = ConnectLatency.percentile(times, 0.99), max = times.max() ?? .nan
        if args.flag("json") {
            let figures: [(String, Double?)] = [
                ("connections", Double(connections)), ("p50_ms", p50), ("p90_ms", p90), ("p99_ms", p99),
                ("max_ms", max), ("refused", Double(result.refused)), ("unanswered", Double(result.unanswered)),
                ("workers_before", Double(result.workersBefore)), ("workers_peak", Double(result.workersPeak)),
                ("workers_after", Double(result.workersAfter)), ("zombies_after", Double(result.zombiesAfter)),
                ("descriptors_before", result.descriptorsBefore.map(Double.init)),
                ("descriptors_after", result.descriptorsAfter.map(Double.init)),
            ]
            let body = figures.map { name, value in
                "\"\(name)\":" + (value.map { $0.isFinite ? Self.number($0) : "null" } ?? "null")
            }
            Output.line("{" + body.joined(separator: ",") + "}")
            return ExitCode.success
        }
        func ms(_ value: Double) -> String { String(format: "%.2f", value) }
        Output.line(
            "\(connections) connections to \(path) (host pid \(result.hostPID)), spaced \(Self.number(spacing)) ms, "
                + "in \(String(format: "%.2f", result.seconds)) s")
        Output.line(
            "connect → host's HELLO: p50 \(ms(p50)) ms, p90 \(ms(p90)) ms, p99 \(ms(p99)) ms, max \(ms(max)) ms")
        Output.line(
            "refused \(result.refused)" + (result.firstRefusal.map { " (first: \($0))" } ?? "")
                + ", unanswered \(result.unanswered)")
        Output.line(
            "host's children: before \(result.workersBefore), peak \(result.workersPeak), after \(result.workersAfter), "
                + "zombies after \(result.zombiesAfter)")
        Output.line(
            "host's descriptors: before \(result.descriptorsBefore.map(String.init) ?? "?"), "
                + "after \(result.descriptorsAfter.map(String.init) ?? "?")")
        return ExitCode.success
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }
}
