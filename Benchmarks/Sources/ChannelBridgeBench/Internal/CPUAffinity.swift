import Glibc

/// Pins every thread of this process to one CPU, and undoes it. Children started meanwhile (the
/// C baseline and its forked server, `channelbridge-bench serve`) inherit the pinning.
///
/// Why: on 2-vCPU virtual machines a wake-up on the other, idle CPU costs tens of microseconds
/// and varies with the host's load, so unpinned ping-pong figures move several-fold between
/// runs, even the raw C pair's alone. On one CPU both sides pay only
/// their context switches and system calls, and the figures repeat within a few per cent.
struct CPUAffinity {
    private typealias SetAffinity = @convention(c) (Int32, Int, UnsafeRawPointer) -> Int32
    private typealias GetAffinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer) -> Int32
    // sched_setaffinity/sched_getaffinity sit behind _GNU_SOURCE in Glibc's headers.
    private static let setAffinity: SetAffinity? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity")
        .map { unsafeBitCast($0, to: SetAffinity.self) }
    private static let getAffinity: GetAffinity? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_getaffinity")
        .map { unsafeBitCast($0, to: GetAffinity.self) }

    /// A CPU mask of 1024 bits, as glibc's `cpu_set_t`.
    private var original = [UInt64](repeating: 0, count: 16)

    /// The process whose threads are pinned (this one, or a child such as the extension host).
    private var process: Int32 = getpid()

    /// Pins all threads to `cpu`; nil when the system calls are missing or refused.
    static func pinProcess(toCPU cpu: Int) -> CPUAffinity? {
        pin(process: getpid(), toCPU: cpu)
    }

    /// Pins every thread of `process` to `cpu` (threads it starts later inherit it).
    static func pin(process: Int32, toCPU cpu: Int) -> CPUAffinity? {
        guard let setAffinity, let getAffinity else { return nil }
        var saved = CPUAffinity()
        saved.process = process
        let read = saved.original.withUnsafeMutableBytes { getAffinity(process, $0.count, $0.baseAddress!) }
        guard read == 0 else { return nil }
        var mask = [UInt64](repeating: 0, count: 16)
        mask[cpu / 64] = 1 << UInt64(cpu % 64)
        guard apply(mask, to: process, with: setAffinity) else { return nil }
        return saved
    }

    /// Gives every thread back the CPUs it had.
    func restore() {
        guard let setAffinity = Self.setAffinity else { return }
        _ = Self.apply(original, to: process, with: setAffinity)
    }

    private static func apply(_ mask: [UInt64], to process: Int32, with setAffinity: SetAffinity) -> Bool {
        let threads = directoryEntries("/proc/\(process)/task")
        var all = true
        for thread in threads.compactMap({ Int32($0) }) {
            let result = mask.withUnsafeBytes { setAffinity(thread, $0.count, $0.baseAddress!) }
            // A thread may have exited since the listing; only the main thread's failure matters.
            if result != 0 && thread == process { all = false }
        }
        return all
    }

    /// The names in `path` other than `.` and `..`; empty when it cannot be read.
    private static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
