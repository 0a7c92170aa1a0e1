import ChannelBridgeHost
import Glibc

// A closed pipe is an error on that pipe, not the end of the host.
signal(SIGPIPE, SIG_IGN)
// No `ProcessTuning.retainLargeAllocations()` here: the host serves preferences, not bulk
// transfers, and keeping every freed large buffer would let one burst (a client flooding it)
// hold memory long after it ended (wire protocol §4.10).
exit(await ExtensionHostCommand.main(arguments: Array(CommandLine.arguments.dropFirst()),
                                     interruptions: HostSignal.watch()))
