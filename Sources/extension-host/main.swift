import ChannelBridgeHost
import ChannelBridgeSocket
import Glibc

// A closed pipe is an error on that pipe, not the end of the host.
signal(SIGPIPE, SIG_IGN)
ProcessTuning.retainLargeAllocations()
exit(await ExtensionHostCommand.main(arguments: Array(CommandLine.arguments.dropFirst()),
                                     interruptions: HostSignal.watch()))
