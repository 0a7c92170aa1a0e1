import ChannelBridgeHost
import ChannelBridgePlatform

// Process-wide policy is decided here, at the executable's edge; the libraries only offer the means.
// Two malloc arenas, before any thread starts: session threads come and go with connections, and
// with glibc's default of eight arenas per core their allocations fragment every arena in turn,
// so resident memory creeps up for as long as connections churn.
AllocatorTuning.limitArenas(to: 2)
// No `AllocatorTuning.retainLargeAllocations()` here: the host serves preferences, not bulk
// transfers, and keeping every freed large buffer would let one burst (a client flooding it)
// hold memory long after it ended (wire protocol §4.10).
// The rest is the public entry point's, as for any host executable: a closed pipe is an error on
// that pipe, not the end of the host; SIGINT/SIGTERM cancel the host's run (an orderly shutdown,
// exit 130/143, which waits at most --shutdown-timeout for owed replies) and a second one ends the
// process at once with its status, for when even that is too long (Protocol/extension-host.md
// §1.3); a fatal signal in a Flutter-style handler names its channel last.
await ExtensionHostCommand.main()
