import Foundation

/// `soak`: for `--seconds` N, everything at once against one host with a data directory and an
/// app group: pipelined writers, readers, listeners that cancel or drop their connection, an
/// importer taking a list while others append to it, `channelbridge prefs` processes on the same
/// data directory, a stall detector, and the host's memory, descriptors and threads sampled every
/// second. It fails (throws, after printing every figure) on any error, any stall, any appended
/// item lost or seen twice, descriptors or threads that keep growing, or memory growing by
/// 0.1 MB/min or more in a run of 600 s or longer.
enum SoakScenario {
    static let writers = 3, readers = 2, appenders = 2
    static let cancellingListeners = 2, droppingListeners = 2
    /// How long the workers may go on after the end before the host is ended under them.
    static let finishingLimit: Duration = .seconds(30)
    /// Descriptor and thread counts are judged only over runs this long (a few noisy samples make
    /// any slope); below it they are printed, not judged.
    static let growthJudgedFromSeconds = 60.0
    /// A count grows when its slope is at least this per minute and its floor rose.
    static let countSlopeLimit = 1.0
    static let memorySlopeLimit = 0.1, memoryJudgedFromSeconds = 600.0

    /// The operation kinds reported, in order (each as `ops_<kind>`, 0 when none was done).
    static let kinds = [
        "setString", "setInt", "remove", "appendToList", "take", "getString", "getAll",
        "listen_then_cancel", "listen_then_goodbye", "listen_then_reset", "events_received",
        "cli_prefs_set", "cli_prefs_get", "cli_prefs_append",
    ]

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        let seconds = settings.soakSeconds
        // The host keeps every default, its HELLO timeout included, whatever --scale says.
        try await StressHost.with("soak", settings: StressSettings(scale: 1)) { host in
            let sampler = HostSampler(host)
            let ledger = SoakLedger()
            let inbox = SoakInbox()
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            let stallWatch = Task {
                while !Task.isCancelled {
                    ledger.checkStalls()
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            if await !runWorkers(host, ledger, inbox, until: deadline) {
                ledger.error(
                    "soak", StressError("workers still running \(finishingLimit) after the end; the host was ended"))
            }
            let verdict = await inbox.drain(socket: host.socket, ledger: ledger)
            stallWatch.cancel()
            ledger.checkStalls()
            let samples = await sampler.stop()
            let summary = ledger.summary()
            let failures = reportFigures(seconds: seconds, summary, verdict, samples, report)
            for line in summary.errors { Output.error("soak: error: " + line) }
            for line in summary.stalls { Output.error("soak: stall: " + line) }
            for line in verdict.lost.prefix(20) { Output.error("soak: lost: " + line) }
            for line in verdict.duplicated.prefix(20) { Output.error("soak: duplicated: " + line) }
            for line in verdict.unexpected.prefix(20) { Output.error("soak: unexpected: " + line) }
            if !failures.isEmpty { throw StressError("soak failed: " + failures.joined(separator: "; ")) }
        }
    }

    /// Runs every worker until `deadline`; false when some were still running `finishingLimit`
    /// after it, and the host was ended (so that their calls fail and they return).
    private static func runWorkers(
        _ host: StressHost, _ ledger: SoakLedger, _ inbox: SoakInbox,
        until deadline: ContinuousClock.Instant
    ) async -> Bool {
        let socket = host.socket
        return await withTaskGroup(of: Bool.self) { group in
            var workers = 0
            func add(_ body: @escaping @Sendable () async -> Void) {
                workers += 1
                group.addTask {
                    await body()
                    return true
                }
            }
            for writer in 0..<writers {
                add { await SoakWorkers.write(as: writer, socket: socket, ledger: ledger, until: deadline) }
            }
            for _ in 0..<readers {
                add { await SoakWorkers.read(writers: writers, socket: socket, ledger: ledger, until: deadline) }
            }
            for _ in 0..<cancellingListeners {
                add { await SoakWorkers.listenAndCancel(socket: socket, ledger: ledger, until: deadline) }
            }
            for _ in 0..<droppingListeners {
                add { await SoakWorkers.listenAndDrop(socket: socket, ledger: ledger, until: deadline) }
            }
            for appender in 0..<appenders {
                add { await inbox.append(as: "a\(appender)", socket: socket, ledger: ledger, until: deadline) }
            }
            add { await inbox.importItems(socket: socket, ledger: ledger, until: deadline) }
            add {
                await SoakWorkers.runCLI(
                    dataDirectory: host.dataDirectory, inbox: inbox, ledger: ledger,
                    every: .seconds(2), until: deadline)
            }
            // The watchdog: false when it wakes, true when cancelled because every worker returned.
            group.addTask { (try? await Task.sleep(until: deadline + finishingLimit)) == nil }
            var intime = true
            while workers > 0, let workerReturned = await group.next() {
                if workerReturned {
                    workers -= 1
                } else {
                    intime = false
                    host.child.terminate()
                }
            }
            group.cancelAll()
            return intime
        }
    }

    /// Prints every figure; returns what failed.
    private static func reportFigures(
        seconds: Double, _ summary: SoakLedger.Summary, _ verdict: SoakInbox.Verdict,
        _ samples: [HostSampler.Sample], _ report: StressReport
    ) -> [String] {
        var failures: [String] = []
        report.figure("seconds", seconds)
        for kind in kinds { report.figure("ops_" + kind, summary.operations[kind] ?? 0) }
        report.figure("longest_write_ack_ms", summary.longestAcknowledgementMilliseconds, "(stall above 2000)")
        report.figure("errors", summary.errorCount, "(target 0)")
        report.figure("stalls", summary.stallCount, "(target 0)")
        report.figure("inbox_items_appended", verdict.appended)
        report.figure("inbox_items_taken", verdict.taken)
        report.figure("inbox_items_left", verdict.left)
        report.figure("inbox_items_lost", verdict.lost.count, "(target 0)")
        report.figure("inbox_items_duplicated", verdict.duplicated.count, "(target 0)")
        if summary.errorCount > 0 { failures.append("\(summary.errorCount) errors") }
        if summary.stallCount > 0 { failures.append("\(summary.stallCount) stalls") }
        if !verdict.lost.isEmpty { failures.append("\(verdict.lost.count) items lost") }
        if !verdict.duplicated.isEmpty { failures.append("\(verdict.duplicated.count) items duplicated") }
        if !verdict.unexpected.isEmpty { failures.append("\(verdict.unexpected.count) unexpected values in the list") }

        // Slopes over the samples after the warm-up: the first minute, or the first sixth of a
        // shorter run than 6 minutes.
        let warmUp = seconds >= 360 ? 60 : seconds / 6
        let window = samples.filter { $0.time >= warmUp }
        report.figure("slope_from_s", warmUp)
        let countsJudged = seconds >= growthJudgedFromSeconds
        let countNote =
            countsJudged
            ? "(target < \(countSlopeLimit), or a floor that did not rise)"
            : "(judged from --seconds \(Int(growthJudgedFromSeconds)))"
        let series: [(name: String, unit: String, value: (HostSampler.Sample) -> Double)] = [
            ("host_rss", "_mb", \.residentMegabytes), ("host_fds", "", \.fileDescriptors),
            ("host_threads", "", \.threads),
        ]
        for (name, unit, value) in series {
            let slope = HostSampler.slope(times: window.map(\.time), values: window.map(value)) * 60
            report.figure(name + "_start" + unit, samples.first.map(value) ?? .nan)
            report.figure(name + "_end" + unit, samples.last.map(value) ?? .nan)
            if name == "host_rss" {
                let judged = seconds >= memoryJudgedFromSeconds
                report.figure(
                    name + "_slope_mb_per_min", slope,
                    judged
                        ? "(target < \(memorySlopeLimit))" : "(judged from --seconds \(Int(memoryJudgedFromSeconds)))")
                if judged, !(slope < memorySlopeLimit) {
                    failures.append(String(format: "memory grows %.3f MB/min", slope))
                }
            } else {
                report.figure(name + "_slope_per_min", slope, countNote)
                if countsJudged, grows(window.map(value), slope: slope) {
                    failures.append(
                        (name == "host_fds" ? "descriptors" : "threads")
                            + String(format: " grow %.2f per minute", slope))
                }
            }
        }
        return failures
    }

    /// Whether a count grows: a slope of `countSlopeLimit` per minute or more, and a floor (the
    /// least value) over the last quarter of the samples above that over the first quarter, so
    /// that connections coming and going at the wrong moments do not make a leak.
    static func grows(_ values: [Double], slope: Double) -> Bool {
        guard slope >= countSlopeLimit, values.count >= 4 else { return false }
        let quarter = values.count / 4
        let first = values.prefix(quarter).min() ?? 0, last = values.suffix(quarter).min() ?? 0
        return last > first
    }
}
