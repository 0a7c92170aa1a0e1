import ChannelBridgePlatform
import ChannelBridgeSocket
import Synchronization
import Foundation
import ChannelBridgeMessenger

/// An `extension-host` child process for one stress scenario: its own socket and data directory,
/// its resident memory and thread count read from `/proc`.
struct StressHost {
    static let appGroup = "group.stress"
    private static let directories = Atomic<Int>(0)

    /// A fresh directory for one host's socket and data, short enough for `sun_path`: under
    /// `$TMPDIR` when that is a short absolute path, else `/tmp`.
    static func socketDirectory(_ purpose: String) -> String {
        let number = directories.wrappingAdd(1, ordering: .relaxed).newValue
        var base = "/tmp"
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"], tmp.hasPrefix("/"), tmp.utf8.count <= 40 {
            base = tmp.hasSuffix("/") && tmp.count > 1 ? String(tmp.dropLast()) : tmp
        }
        return "\(base)/channelbridge-stress-\(Syscalls.processID)-\(purpose)-\(number)"
    }

    let child: ChildProcess
    let directory: String
    var socket: String { directory + "/h.sock" }
    var dataDirectory: String { directory + "/data" }

    /// Starts a host serving `group.stress` (and `channelbridge/echo`), with `extra` options, and
    /// waits for its ready line and for start-up work after it to settle.
    static func start(
        _ purpose: String, settings: StressSettings, extra: [String] = [], product: String = "extension-host"
    ) async throws -> StressHost {
        let directory = socketDirectory(purpose)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var arguments = [
            "--socket", directory + "/h.sock", "--data-dir", directory + "/data",
            "--app-group", appGroup, "--echo",
        ]
        if let helloTimeout = settings.helloTimeoutOption { arguments += ["--hello-timeout", helloTimeout] }
        arguments += extra
        let child = try ChildProcess(product: product, arguments: arguments)
        let host = StressHost(child: child, directory: directory)
        do {
            let line = try await child.readLine()
            guard line == "ready \(host.socket)" else {
                throw StressError("\(product) said '\(line)', not its ready line")
            }
            try await Task.sleep(for: .milliseconds(200))
            return host
        } catch {
            await host.stop()
            throw error
        }
    }

    /// Resident memory in MiB.
    func residentMegabytes() -> Double {
        (try? child.residentMegabytes()) ?? .nan
    }

    /// The peak of its resident memory so far (`VmHWM`), in MiB.
    func peakResidentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else {
            return .nan
        }
        return kilobytes / 1024
    }

    /// The host's thread count.
    func threads() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
            let count = Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "")
        else {
            return -1
        }
        return count
    }

    /// A client connection with the default options.
    func connect() async throws -> SocketConnection {
        let connection = try await SocketConnection.connect(to: socket)
        _ = try await connection.messenger.waitForPeerHello()
        return connection
    }

    /// Ends the host (SIGTERM) and removes its directory.
    func stop() async {
        child.terminate()
        await child.waitForExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` against a fresh host, which is stopped afterwards whatever happens.
    static func with<T>(
        _ purpose: String, settings: StressSettings, extra: [String] = [], product: String = "extension-host",
        _ body: (StressHost) async throws -> T
    ) async throws -> T {
        let host = try await start(purpose, settings: settings, extra: extra, product: product)
        do {
            let result = try await body(host)
            await host.stop()
            return result
        } catch {
            await host.stop()
            throw error
        }
    }
}

/// Samples a host's resident memory every few milliseconds on a thread of its own and keeps the
/// peak, until stopped.
final class MemorySampler: Sendable {
    private let peak = LockedValue<Double>(0)
    private let running = Atomic<Bool>(true)

    init(_ host: StressHost, everyMilliseconds interval: UInt32 = 50) {
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                let now = host.residentMegabytes()
                peak.withLock { $0 = max($0, now) }
                Syscalls.sleep(microseconds: interval * 1000)
            }
        }
        thread.name = "stress rss"
        thread.start()
    }

    /// Stops sampling; returns the peak seen.
    func stop() -> Double {
        running.store(false, ordering: .relaxed)
        return peak.withLock { $0 }
    }
}
