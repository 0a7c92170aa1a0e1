import Glibc

/// Process-wide allocator settings, for executables that move large payloads over sockets. A
/// library never calls this: it is the executable's decision (the host does not; see
/// `extension-host`'s `main.swift`).
package enum AllocatorTuning {
    /// Keeps freed buffers of up to 64 MiB in the heap for reuse instead of returning them to the
    /// kernel. By default glibc maps every block over 128 KiB on its own and unmaps it when freed, so
    /// each large message round trip pays page faults for every fresh buffer; measured on a 16 MiB
    /// `Uint8List` round trip this triples throughput. Costs up to that much resident memory after
    /// a large transfer. Call once, early in `main`.
    package static func retainLargeAllocations() {
        // `mallopt` is not in the Glibc module map; it is part of glibc's ABI, so look it up.
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }  // RTLD_DEFAULT
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD (malloc.h)
        _ = mallopt(mmapThreshold, 64 << 20)
        _ = mallopt(trimThreshold, 512 << 20)
    }

    /// Lets at most `count` malloc arenas exist. glibc gives threads up to eight arenas per core
    /// and never returns an arena's fragmented free space to another; a server that starts and
    /// ends threads as connections come and go then spreads long-lived allocations over every
    /// arena, and its resident memory creeps up for as long as connections churn (measured on
    /// the host's soak: 0.2 MB/min with the default, flat with two arenas). Fewer arenas cost
    /// lock contention only between threads that allocate at the same time, which the per-thread
    /// caches absorb for small blocks. Call once, first thing in `main`, before any thread starts.
    package static func limitArenas(to count: Int32) {
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }  // RTLD_DEFAULT
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        let arenaMax: Int32 = -8  // M_ARENA_MAX (malloc.h)
        _ = mallopt(arenaMax, count)
    }
}
