import Glibc

/// Starts detached OS threads for blocking work (accept, read, write, file copies), so that a
/// blocking syscall never holds a thread of Swift's cooperative pool.
///
/// This is plain pthreads rather than Foundation's `Thread` so that the host links only
/// FoundationEssentials: full Foundation brings ICU and about 6 MB of resident pages with it. The
/// socket transport (reader, writer, accept threads), the store (its inotify reader) and the
/// host (file copies) all start their threads here.
///
/// ```swift
/// DetachedThread.start(name: "file copy") { copyEverything() }
/// ```
public enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps).
    ///
    /// Stops the process if no thread can be created: only for work the process cannot go on
    /// without. Work that can be refused (a connection, a request) uses `tryStart`.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let result = tryStart(name: name, body)
        // Without a thread the work it carries could never finish.
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    /// Runs `body` on a new detached thread named `name`, or returns the error `pthread_create`
    /// reported (`EAGAIN` when the process or user is out of threads) without running it.
    ///
    /// - Returns: 0 when the thread started, else the error number.
    public static func tryStart(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { argument in
                let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
                _ = setThreadName?(pthread_self(), String(decoding: start.name.utf8.prefix(15), as: UTF8.self))
                start.body()
                return nil
            }, start)
        if result != 0 { Unmanaged<ThreadStart>.fromOpaque(start).release() }
        return result
    }

    /// The text of a `tryStart` error, e.g. `Resource temporarily unavailable (EAGAIN)`.
    public static func describe(_ error: Int32) -> String {
        let name = error == EAGAIN ? " (EAGAIN)" : ""
        return String(cString: strerror(error)) + name
    }
}

private final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

// `pthread_setname_np` needs _GNU_SOURCE, so the Glibc module map leaves it out; it is part of
// glibc's ABI, so look it up. Names show in `top -H`, `perf` and debuggers.
private let setThreadName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? =
    dlsym(nil, "pthread_setname_np").map {
        unsafeBitCast($0, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }
