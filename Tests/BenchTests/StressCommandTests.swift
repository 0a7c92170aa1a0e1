import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge stress` run as a real process, against real `extension-host` children, at a tiny
/// size: every scenario runs to the end and reports every figure. No timing or memory figure is
/// asserted (the machine decides those); only counts whose right value does not depend on it.
@Suite struct StressCommandTests {
    static let expected: [String: Set<String>] = [
        "unread-replies": ["host_rss_before_mb", "flooder_requests_written", "host_rss_peak_growth_mb", "second_client_calls",
                           "second_client_wrong_or_failed", "second_client_p50_ms", "second_client_max_ms",
                           "host_rss_after_close_mb"],
        "unread-events": ["value_kib", "control_host_rss_before_mb", "control_writes", "control_host_rss_peak_growth_mb",
                          "control_reading_listener_events", "control_reading_listener_has_latest_of_every_key",
                          "host_rss_before_mb", "writes", "host_rss_peak_growth_mb", "reading_listener_events",
                          "reading_listener_has_latest_of_every_key", "growth_added_by_the_stuck_listener_mb"],
        "vanish": ["requests_pipelined", "writes_landed", "store_changes_after_close", "store_changing_ms_after_close"],
        "idle-connections": ["host_threads_idle", "connections", "answered_with_hello", "refused_too_many_connections",
                             "unanswered", "all_answered_within_ms", "host_rss_mb", "host_threads", "closed_by_hello_timeout",
                             "hello_timeout_closed_all_after_s", "new_client_served_after_close", "new_client_served_in_ms",
                             "host_threads_after_close"],
        "many-clients": ["clients", "calls", "wrong_replies", "failed_calls", "calls_per_s", "host_threads_after"],
    ]

    /// Not under a sanitizer: the scenarios are made of wall-clock limits (a 0.3 s HELLO timeout,
    /// 10 s waits) that a host that much slower misses on 2 busy cores (an AddressSanitizer run in
    /// CI missed the 0.3 s once the suite's other tests ran beside it). The plain suite runs it.
    @Test(.disabled(if: Sanitizer.current != nil, "wall-clock limits a sanitized build misses"))
    func everyScenarioReportsEveryFigure() async throws {
        let outcome = try await BenchProcess.run("channelbridge", ["stress", "--scale", "0.01", "--json"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: [String: Any]])
        #expect(Set(object.keys) == Set(Self.expected.keys))
        for (scenario, names) in Self.expected {
            let figures = try #require(object[scenario], "no \(scenario)")
            #expect(Set(figures.keys) == names, "\(scenario)")
            for (name, value) in figures {
                #expect((value as? NSNumber)?.doubleValue.isFinite == true, "\(scenario).\(name) = \(value)")
            }
        }
        func count(_ scenario: String, _ name: String) -> Int? { (object[scenario]?[name] as? NSNumber)?.intValue }
        // Counts that are right or wrong whatever the machine.
        #expect(count("unread-replies", "second_client_wrong_or_failed") == 0)
        #expect(count("unread-events", "reading_listener_has_latest_of_every_key") == 1)
        #expect(count("idle-connections", "unanswered") == 0)
        #expect(count("idle-connections", "closed_by_hello_timeout") == count("idle-connections", "answered_with_hello"))
        #expect(count("idle-connections", "new_client_served_after_close") == 1)
        #expect(count("many-clients", "wrong_replies") == 0)
        #expect(count("many-clients", "failed_calls") == 0)
        #expect((count("vanish", "writes_landed") ?? .max) <= (count("vanish", "requests_pipelined") ?? 0))
    }

    @Test func tablePrintsOneLinePerFigure() async throws {
        let outcome = try await BenchProcess.run("channelbridge", ["stress", "many-clients", "--scale", "0.01"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == Self.expected["many-clients"]!.count)
        #expect(lines.allSatisfy { $0.hasPrefix("many-clients ") })
        #expect(lines.contains { $0.contains("wrong_replies") && $0.contains(" 0 ") })
    }

    @Test func unknownScenarioIsAUsageError() async throws {
        let outcome = try await BenchProcess.run("channelbridge", ["stress", "nope"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.hasPrefix(
            "channelbridge stress: unknown scenario 'nope'; known: unread-replies, unread-events, vanish, idle-connections, many-clients"))
    }
}
