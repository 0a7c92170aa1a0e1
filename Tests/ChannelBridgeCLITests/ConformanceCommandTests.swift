import ChannelBridgeTestSupport
import Foundation
import Testing

/// `channelbridge conformance` as a process: against our codecs, our own peer adapter, and adapters that
/// are wrong on purpose, hang or die.
@Suite struct ConformanceCommandTests {
    let channelbridge = ProcessRunner.path(of: "channelbridge")
    let vectors = packageRoot.appendingPathComponent("Protocol/vectors").path

    /// Writes `text` to `name` in a fresh directory; `removeScratch` removes that directory.
    func scratchScript(_ name: String, _ text: String) throws -> String {
        try TestDirectory().write(name, text)
    }

    func removeScratch(_ path: String) {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    func closingLine(_ stdout: String) -> String { String(stdout.split(separator: "\n").last ?? "") }

    @Test func builtInCodecsPassEveryPublishedVector() async throws {
        let outcome = try await ProcessRunner.runOnThread("channelbridge", ["conformance", "--vectors", vectors])
        #expect(outcome.status == 0)
        #expect(closingLine(outcome.stdout).hasSuffix(" passed, 0 failed"))
        #expect(outcome.stdout.split(separator: "\n").count == 1)
    }

    @Test func ourOwnAdapterPassesTheSameVectors() async throws {
        let direct = try await ProcessRunner.runOnThread("channelbridge", ["conformance", "--vectors", vectors])
        // The peer's answer deadline (10 s) stretches like a hang guard: an AddressSanitizer CI run,
        // with the suite's other child processes beside it, once missed it.
        let timeout = String(HangGuardScale.scaled(10))
        let peer = try await ProcessRunner.runOnThread(
            "channelbridge",
            [
                "conformance", "--vectors", vectors, "--timeout", timeout,
                "--peer", "\(channelbridge) codec serve",
            ])
        #expect(peer.status == 0)
        #expect(closingLine(peer.stdout) == closingLine(direct.stdout))
    }

    /// An adapter that relays to ours but flips the last byte of every Standard encoding, and one
    /// that misaligns floats by dropping a padding byte: each failure names the vector.
    @Test(arguments: [
        ("flip", #"h = h[:-2] + "%02x" % (int(h[-2:], 16) ^ 1) if h else h"#),
        ("misalign", #"h = h.replace("06000000", "060000", 1) if "06000000" in h else h"#),
    ])
    func brokenAdaptersAreCaughtAndNamed(kind: String, mutation: String) async throws {
        let script = try scratchScript(
            "\(kind).py",
            """
            import subprocess, sys
            inner = subprocess.Popen([\(pythonString(channelbridge)), "codec", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for line in sys.stdin:
                inner.stdin.write(line); inner.stdin.flush()
                answer = inner.stdout.readline().rstrip("\\n")
                if line.startswith("encode standard") and answer.startswith("ok "):
                    h = answer[3:]
                    \(mutation)
                    answer = "ok " + h
                print(answer, flush=True)
            """)
        defer { removeScratch(script) }
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge",
            [
                "conformance", "--vectors", vectors + "/standard-scalars.json",
                "--peer", "python3 \(script)",
            ])
        #expect(outcome.status == 1)
        let failures = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL ") }
        #expect(!failures.isEmpty)
        if kind == "flip" {
            #expect(
                failures.contains {
                    $0.hasPrefix("FAIL standard-scalars.json:") && $0.contains("encode message: expected ")
                })
        } else {
            #expect(failures.contains { $0.contains("float64") && $0.contains("encode message: expected ") })
        }
        #expect(closingLine(outcome.stdout).hasSuffix("failed") && !closingLine(outcome.stdout).hasSuffix(" 0 failed"))
    }

    @Test func aHangingPeerIsKilledAndReported() async throws {
        let script = try scratchScript("hang.sh", "read line; sleep 600\n")
        defer { removeScratch(script) }
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge",
            [
                "conformance", "--vectors", vectors + "/standard-scalars.json",
                "--peer", "sh \(script)", "--timeout", "1",
            ])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("peer did not answer within"))
        #expect(closingLine(outcome.stdout).hasPrefix("0 passed"))
    }

    @Test func aDyingPeerIsReported() async throws {
        let script = try scratchScript("die.sh", "read line; echo 'ok 00'; exit 3\n")
        defer { removeScratch(script) }
        let outcome = try await ProcessRunner.runOnThread(
            "channelbridge",
            [
                "conformance", "--vectors", vectors + "/standard-scalars.json",
                "--peer", "sh \(script)", "--json",
            ])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("exited with status 3"))
        #expect(outcome.stdout.hasPrefix(#"{"passed":0,"failed":"#))
    }

    @Test func usageAndDataErrors() async throws {
        let missing = try await ProcessRunner.runOnThread(
            "channelbridge", ["conformance", "--vectors", "/nonexistent"])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("channelbridge conformance: no such vector file or directory: /nonexistent"))
        let bad = try scratchScript("bad.json", "{\"messages\": [{\"name\": \"x\"}]}")
        defer { removeScratch(bad) }
        let data = try await ProcessRunner.runOnThread("channelbridge", ["conformance", "--vectors", bad])
        #expect(data.status == 65)
        #expect(data.stderr.contains("x: missing \"hex\""))
    }

    func pythonString(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }
}

/// `channelbridge conformance --socket`: every vector echoed byte for byte by a live host over the wire.
@Suite struct ConformanceOverSocketTests {
    @Test func everyVectorComesBackIdenticalFromALiveHost() async throws {
        try await withHangGuard {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let host = try HostProcess(["--socket", directory.socket, "--data-dir", directory.data, "--echo"])
            defer { host.send(signal: SIGKILL) }
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge",
                [
                    "conformance", "--socket", directory.socket,
                    "--vectors", packageRoot.appendingPathComponent("Protocol/vectors").path,
                ])
            #expect(outcome.status == 0, "\(outcome.stdout)")
            let closing = outcome.stdout.split(separator: "\n").last.map(String.init) ?? ""
            #expect(closing.hasSuffix(" passed, 0 failed"))
            #expect(!closing.hasPrefix("0 passed"))
        }
    }

    @Test func aHostWithoutTheEchoChannelFailsEveryVector() async throws {
        try await withHangGuard {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let host = try HostProcess(["--socket", directory.socket, "--data-dir", directory.data])
            defer { host.send(signal: SIGKILL) }
            _ = try await host.readyLine()
            let outcome = try await ProcessRunner.runOnThread(
                "channelbridge",
                [
                    "conformance", "--socket", directory.socket, "--vectors",
                    packageRoot.appendingPathComponent("Protocol/vectors/standard-scalars.json").path,
                ])
            #expect(outcome.status == 1)
            #expect(
                outcome.stdout.contains(
                    "FAIL standard-scalars.json:null: echo on channelbridge/echo: sent 00, got back a null reply"))
        }
    }
}
