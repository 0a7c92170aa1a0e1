import ChannelBridgeBench
import Dispatch
import Synchronization

// `channelbridge-rtt-driver`: the two processes of `channelbridge-bench rtt` without the stopwatch,
// for counting instructions per call (`Scripts/count-instructions`).
//
//   channelbridge-rtt-driver serve --socket PATH          serve until stdin ends (prints `ready PATH`)
//   channelbridge-rtt-driver call --socket PATH --count N  make N `echo` calls, then exit 0
//   channelbridge-rtt-driver serve-host --socket PATH --data-dir DIR
//                                                          an extension host, until stdin ends
//   channelbridge-rtt-driver call-host --socket PATH --count N
//                                                          N prefs `getInt` calls on a warm key
//   ... serve-host --keys K / call-host --keys K           the group holds K keys (the prefs
//                                                          scenario's strings) and the calls are
//                                                          `getString`s striding through them as
//                                                          that scenario's do
//
// `main` is synchronous on purpose: valgrind 3.19 crashes on Swift's async main. The work runs in
// a detached task on Swift's pool (or the connection's reader thread) while the main thread,
// which is not one of the pool's, waits on a semaphore.

let usage = """
    usage: channelbridge-rtt-driver serve --socket PATH
           channelbridge-rtt-driver call --socket PATH --count N
           channelbridge-rtt-driver serve-host --socket PATH --data-dir DIR [--keys K]
           channelbridge-rtt-driver call-host --socket PATH --count N [--keys K]
    """

func fail(_ message: String, status: Int32) -> Never {
    BenchSystem.writeStandardError(line: message)
    BenchSystem.exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
var options: [String: String] = [:]
// `--NAME VALUE` or `--NAME=VALUE`, for the four names only.
var rest = arguments.dropFirst()
while let argument = rest.popFirst() {
    let body = argument.hasPrefix("--") ? argument.dropFirst(2) : ""
    let name = String(body.prefix(while: { $0 != "=" }))
    let inline = body.contains("=") ? String(body.drop(while: { $0 != "=" }).dropFirst()) : nil
    guard ["socket", "count", "data-dir", "keys"].contains(name), let value = inline ?? rest.popFirst() else {
        fail("channelbridge-rtt-driver: unexpected argument '\(argument)'\n\(usage)", status: 64)
    }
    options[name] = value
}
guard let mode = arguments.first, ["serve", "call", "serve-host", "call-host"].contains(mode),
    let path = options["socket"]
else {
    fail(usage, status: 64)
}
// A `let` the task below reads: top-level variables belong to the main actor, whose thread
// waits on the semaphore.
let dataDirectory = options["data-dir"] ?? ""
if mode == "serve-host", dataDirectory.isEmpty {
    fail("channelbridge-rtt-driver: serve-host needs --data-dir DIR\n\(usage)", status: 64)
}
let keys: Int?
if let text = options["keys"] {
    guard mode.hasSuffix("-host"), let value = Int(text), value >= 1 else {
        fail(
            "channelbridge-rtt-driver: --keys takes a positive whole number, with serve-host or call-host\n\(usage)",
            status: 64)
    }
    keys = value
} else {
    keys = nil
}
let count: Int
if mode.hasPrefix("call") {
    guard let text = options["count"], let value = Int(text), value >= 0 else {
        fail("channelbridge-rtt-driver: call needs --count N (a whole number)\n\(usage)", status: 64)
    }
    count = value
} else {
    guard options["count"] == nil else {
        fail("channelbridge-rtt-driver: serve takes no --count\n\(usage)", status: 64)
    }
    count = 0
}

// The process policy of the program each mode stands for, before any thread starts:
// `channelbridge-bench`, whose `serve` is the rtt scenario's server, or `extension-host`.
BenchSystem.ignoreBrokenPipes()
if mode.hasSuffix("-host") {
    BenchSystem.limitArenas(to: 2)
} else {
    BenchSystem.retainLargeAllocations()
}

let finished = DispatchSemaphore(value: 0)
let failure = Mutex<String?>(nil)
// Detached: top-level code is on the main actor, and the main thread is about to block.
Task.detached {
    do {
        switch mode {
        case "serve": try await RttDriver.serve(path: path)
        case "call": try await RttDriver.call(path: path, count: count)
        case "serve-host": try await PrefsDriver.serve(path: path, dataDirectory: dataDirectory, keys: keys)
        default: try await PrefsDriver.call(path: path, count: count, keys: keys)
        }
    } catch {
        failure.withLock { $0 = "channelbridge-rtt-driver \(mode): \(error)" }
    }
    finished.signal()
}
finished.wait()
if let message = failure.withLock({ $0 }) { fail(message, status: 1) }
BenchSystem.exit(0)
