import Glibc

/// The operating-system calls the benchmark's own machinery makes (its clock, its children's pipes,
/// its standard streams, its process policy), none of which a user of ChannelBridge needs from it.
/// With `CPUAffinity`, the only Glibc in this package's Swift.
package enum BenchSystem {
    /// Monotonic time in seconds, cheap enough to read around every call.
    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static var processID: Int32 { getpid() }

    /// The path of this process's executable (`/proc/self/exe`), or `argv[0]` when it cannot be read.
    static func ownExecutablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return CommandLine.arguments.first ?? "" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `fd` has input (or end of file) within `milliseconds`.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result >= 0 { return result > 0 }
            if errno != EINTR { return true }  // the read that follows reports the error
        }
    }

    /// `read(2)` into `buffer`, again after EINTR: the byte count, 0 at end of file, -1 on error.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 || errno != EINTR { return count }
        }
    }

    /// Writes all of `bytes` to `fd`; false if a write failed.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Blocks the calling thread until standard input ends: a server's signal to stop. Call it
    /// from a thread of its own, never from the concurrency pool.
    package static func waitForEndOfStandardInput() {
        var byte: UInt8 = 0
        while withUnsafeMutableBytes(of: &byte, { read(STDIN_FILENO, into: $0) }) > 0 {}
    }

    static func writeStandardOutput(_ text: String) {
        var text = text
        _ = text.withUTF8 { writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
    }

    /// Writes `line` and a newline to standard error.
    package static func writeStandardError(line: String) {
        var text = line + "\n"
        _ = text.withUTF8 { writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }

    /// Blocks the calling thread for `microseconds`.
    static func sleep(microseconds: UInt32) {
        usleep(microseconds)
    }

    /// Ends the process with `status`, running exit handlers (standard streams are flushed).
    package static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// A peer that goes away surfaces as an error on write instead of killing this process.
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// What `channelbridge` does at start: large buffers (bulk transfers) stay with the process
    /// instead of being mapped and unmapped for each call.
    package static func retainLargeAllocations() {
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD (malloc.h)
        mallopt(mmapThreshold, 64 << 20)
        mallopt(trimThreshold, 512 << 20)
    }

    /// What `extension-host` does at start: at most `count` malloc arenas.
    package static func limitArenas(to count: Int32) {
        let arenaMax: Int32 = -8  // M_ARENA_MAX (malloc.h)
        mallopt(arenaMax, count)
    }

    /// `mallopt(3)`: not in the Glibc module map, but part of glibc's ABI, so looked up.
    private static func mallopt(_ parameter: Int32, _ value: Int32) {
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }  // RTLD_DEFAULT
        _ = unsafeBitCast(symbol, to: MallOpt.self)(parameter, value)
    }
}
