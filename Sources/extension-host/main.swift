import ChannelBridgeHost
import ChannelBridgeSocket
import Glibc

// A closed pipe is an error on that pipe, not the end of the host.
signal(SIGPIPE, SIG_IGN)
ProcessTuning.retainLargeAllocations()
let interruptions = Interruptions.install()
let status = await ExtensionHostCommand.main(arguments: Array(CommandLine.arguments.dropFirst()),
                                            interruptions: interruptions.signals)
withExtendedLifetime(interruptions.sources) {}
exit(status)
