import Foundation

/// `listeners-cancel` and `listeners-drop`: for `--seconds` N (default 60), two pipelined writers
/// against one host while four listeners on the change stream come and go, either cancelling their
/// stream on a connection they keep or dropping the whole connection while listening (with GOODBYE
/// or with nothing said). A listener ending while a write commits is what once hung every write to
/// the group. It fails on any error and on any write unanswered for longer than 1 s.
enum ListenerChurnScenario {
    static let writers = 2, listeners = 4
    /// A write unanswered this long is a stall.
    static let stallLimit: Duration = .seconds(1)
    /// How long the workers may go on after the end before the host is ended under them.
    static let finishingLimit: Duration = .seconds(30)

    static func run(dropping: Bool) -> @Sendable (StressSettings, StressReport) async throws -> Void {
        { settings, report in try await run(dropping: dropping, seconds: settings.soakSeconds, report) }
    }

    private static func run(dropping: Bool, seconds: Double, _ report: StressReport) async throws {
        let name = dropping ? "listeners-drop" : "listeners-cancel"
        try await StressHost.with(name, settings: StressSettings(scale: 1)) { host in
            let ledger = SoakLedger(stallLimit: stallLimit)
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            let stallWatch = Task {
                while !Task.isCancelled {
                    ledger.checkStalls()
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            let socket = host.socket
            let intime = await withTaskGroup(of: Bool.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        await SoakWorkers.write(as: writer, socket: socket, ledger: ledger, until: deadline)
                        return true
                    }
                }
                for _ in 0..<listeners {
                    group.addTask {
                        if dropping {
                            await SoakWorkers.listenAndDrop(socket: socket, ledger: ledger, until: deadline)
                        } else {
                            await SoakWorkers.listenAndCancel(socket: socket, ledger: ledger, until: deadline)
                        }
                        return true
                    }
                }
                // The watchdog: false when it wakes, true when cancelled because every worker returned.
                group.addTask { (try? await Task.sleep(until: deadline + finishingLimit)) == nil }
                var workers = writers + listeners, intime = true
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
            if !intime {
                ledger.error(
                    name, StressError("workers still running \(finishingLimit) after the end; the host was ended"))
            }
            stallWatch.cancel()
            ledger.checkStalls()
            let summary = ledger.summary()
            let writes = ["setString", "setInt", "remove", "appendToList"].reduce(0) {
                $0 + (summary.operations[$1] ?? 0)
            }
            let listens =
                dropping
                ? (summary.operations["listen_then_goodbye"] ?? 0) + (summary.operations["listen_then_reset"] ?? 0)
                : summary.operations["listen_then_cancel"] ?? 0
            report.figure("seconds", seconds)
            report.figure("writes_acknowledged", writes)
            report.figure(dropping ? "listeners_dropped" : "listeners_cancelled", listens)
            report.figure("events_received", summary.operations["events_received"] ?? 0)
            report.figure(
                "longest_write_ack_ms", summary.longestAcknowledgementMilliseconds,
                "(stall above \(Int(stallLimit.milliseconds)))")
            report.figure("errors", summary.errorCount, "(target 0)")
            report.figure("stalls", summary.stallCount, "(target 0)")
            for line in summary.errors { Output.error("\(name): error: " + line) }
            for line in summary.stalls { Output.error("\(name): stall: " + line) }
            var failures: [String] = []
            if summary.errorCount > 0 { failures.append("\(summary.errorCount) errors") }
            if summary.stallCount > 0 { failures.append("\(summary.stallCount) stalls") }
            if writes == 0 { failures.append("no write was acknowledged") }
            if listens == 0 { failures.append("no listener came and went") }
            if !failures.isEmpty { throw StressError("\(name) failed: " + failures.joined(separator: "; ")) }
        }
    }
}
