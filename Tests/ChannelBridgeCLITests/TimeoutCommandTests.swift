import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// `--timeout` and `CHANNELBRIDGE_TIMEOUT`: a host that does not answer ends the command with
/// exit status 75 and one line saying so; a bad timeout is a usage error.
@Suite struct TimeoutCommandTests {
    /// Stops `live`'s host (SIGSTOP), so that it neither accepts nor answers, and waits until it
    /// has stopped (a signal takes effect after `kill` returns), runs `body`, then kills the host
    /// (SIGCONT, SIGKILL) and removes its directory.
    static func withStoppedHost(_ live: LiveHost, _ body: () async throws -> Void) async throws {
        live.host.send(signal: SIGSTOP)
        let pid = live.host.pid
        // WNOWAIT leaves the child's state for Foundation's own wait for its exit.
        let stopped = await onThread { () -> Bool in
            var info = siginfo_t()
            while true {
                if waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOWAIT) == 0 { return true }
                if errno != EINTR { return false }
            }
        }
        try #require(stopped)
        defer {
            live.host.send(signal: SIGCONT)
            live.host.send(signal: SIGKILL)
            Task {
                _ = await live.host.waitForExit()
                live.directory.remove()
            }
        }
        try await body()
    }

    @Test func aStoppedHostEndsTheCommandWithStatus75() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            try await Self.withStoppedHost(live) {
                let outcome = try await ProcessRunner.runOnThread(
                    "channelbridge", ["--timeout", "2", "prefs", "get", "k", "--socket", live.socket])
                #expect(outcome.status == 75)
                #expect(outcome.stdout == "")
                #expect(
                    outcome.stderr
                        == "channelbridge prefs: no answer from the host at \(live.socket) within 2 s: it may be stopped or overloaded\n"
                )
            }
        }
    }

    @Test func theEnvironmentGivesTheDefaultTimeout() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            try await Self.withStoppedHost(live) {
                var environment = ProcessInfo.processInfo.environment
                environment["CHANNELBRIDGE_TIMEOUT"] = "1.5"
                let outcome = try await ProcessRunner.runOnThread(
                    "channelbridge", ["items", "--socket", live.socket],
                    environment: environment)
                #expect(outcome.status == 75)
                #expect(
                    outcome.stderr
                        == "channelbridge items: no answer from the host at \(live.socket) within 1.5 s: it may be stopped or overloaded\n"
                )
            }
        }
    }

    /// With isolation the session is served by a worker in a process group of its own, which a
    /// SIGSTOP of the host does not stop.
    @Test(.disabled(if: HostProcess.isolationForced, "a worker, not the stopped host, serves the session"))
    func aSessionCallToAHostStoppedMeanwhileEndsTheSessionWithStatus75() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            let session = try LineDrivenChild(
                ProcessRunner.path(of: "channelbridge"),
                ["session", "--timeout", "1", "--socket", live.socket])
            session.send(#"shared_preference_app_group setString {"key": "k", "value": "v"}"#)
            #expect(await session.stdout.next() == "null")
            try await Self.withStoppedHost(live) {
                session.send(#"shared_preference_app_group getString {"key": "k"}"#)
                session.send("channelbridge/extension getInputItems")
                let line = await session.stdout.next()
                #expect(
                    line
                        == "error: no answer from the host at \(live.socket) within 1 s: it may be stopped or overloaded"
                )
                #expect(await session.status() == 75)
                #expect(await LineDrivenChild.rest(of: session.stdout) == [])
                #expect(await LineDrivenChild.rest(of: session.stderr) == [])
            }
        }
    }

    @Test(arguments: ["0", "-1", "abc", "nan", "inf"])
    func aTimeoutThatIsNotAPositiveNumberIsAUsageError(_ text: String) async throws {
        try await withHangGuard {
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["prefs", "get", "k", "--timeout", text, "--socket", "/nonexistent/h.sock"])
            #expect(outcome.status == 64)
            #expect(outcome.stdout == "")
            #expect(
                outcome.stderr
                    == "channelbridge prefs: --timeout takes a number of seconds greater than 0, not '\(text)'\n"
                    + "Run 'channelbridge prefs --help' for usage.\n")
        }
    }

    @Test func aBadEnvironmentTimeoutIsAUsageError() async throws {
        try await withHangGuard {
            var environment = ProcessInfo.processInfo.environment
            environment["CHANNELBRIDGE_TIMEOUT"] = "0"
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["call", "a", "b", "--socket", "/nonexistent/h.sock"], environment: environment)
            #expect(outcome.status == 64)
            #expect(
                outcome.stderr
                    == "channelbridge call: CHANNELBRIDGE_TIMEOUT takes a number of seconds greater than 0, not '0'\n"
                    + "Run 'channelbridge call --help' for usage.\n")
        }
    }

    @Test func noHostListeningStillExits69() async throws {
        try await withHangGuard {
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge", ["items", "--timeout", "0.5", "--socket", "/nonexistent/h.sock"])
            #expect(outcome.status == 69)
        }
    }
}
