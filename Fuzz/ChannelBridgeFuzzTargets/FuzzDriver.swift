import Foundation

/// What `channelbridge-fuzz` does with its own flags (libFuzzer ignores flags that start with `--`).
package enum FuzzDriver {
    /// Reads `--target=NAME` (or `CHANNELBRIDGE_FUZZ_TARGET`), and handles `--list` and
    /// `--write-seeds=DIR [--repository=ROOT]`, which print or write and exit. Returns the target
    /// that every input goes to; exits with a usage message when there is none.
    package static func start(arguments: [String]) -> AnyFuzzTarget {
        var options: [String: String] = [:]
        for argument in arguments.dropFirst() where argument.hasPrefix("--") {
            let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1)
            options[String(parts.first ?? "")] = parts.count > 1 ? String(parts[1]) : ""
        }
        if options["list"] != nil {
            finish(FuzzTargets.all.map(\.name).joined(separator: "\n"), status: 0)
        }
        let name = options["target"] ?? ProcessInfo.processInfo.environment["CHANNELBRIDGE_FUZZ_TARGET"]
        guard let name, let target = FuzzTargets.named(name) else {
            fail(
                "name a target with --target=NAME, one of: \(FuzzTargets.all.map(\.name).joined(separator: ", "))",
                status: 64)
        }
        if let directory = options["write-seeds"] {
            let count: Int
            do {
                count = try SeedSource(repository: options["repository"] ?? ".").write(target, to: directory)
            } catch {
                fail("cannot write the seeds of \(name): \(error)", status: 1)
            }
            finish("\(name): \(count) seeds", status: 0)
        }
        return target
    }

    private static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("channelbridge-fuzz: \(message)\n".utf8))
        _exit(status)
    }

    /// Prints and ends the process without exit handlers: LeakSanitizer would otherwise report
    /// this function's own locals, alive at the exit, as leaks.
    private static func finish(_ output: String, status: Int32) -> Never {
        FileHandle.standardOutput.write(Data((output + "\n").utf8))
        _exit(status)
    }
}
