import Foundation

/// What `/proc` says about a process's children and descriptors, for the figures of `stress`
/// (a host's workers, its zombies, its open descriptors).
enum ProcessTable {
    /// The children of `pid` with their state letters (`S`, `R`, `Z`, …), read from
    /// `/proc/PID/task/*/children` and each child's `stat`; empty when `pid` is gone.
    static func children(of pid: Int32) -> [(pid: Int32, state: Character)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var found: [(pid: Int32, state: Character)] = []
        for task in tasks {
            guard let list = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)
            else { continue }
            for entry in list.split(separator: " ") {
                guard let child = Int32(entry.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
                found.append((child, state(of: child) ?? "?"))
            }
        }
        return found
    }

    /// The state letter of `pid` (the field after the command's closing parenthesis in its `stat`).
    static func state(of pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].first { $0 != " " }
    }

    /// How many descriptors `pid` has open, or nil when its `/proc/PID/fd` cannot be read.
    static func descriptors(of pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }
}
