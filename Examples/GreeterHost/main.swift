// A plugin of your own served to `channelbridge`: an extension host (the stock one's options,
// socket and built-in plugins) that also registers GreeterPlugin in every session.
//
//   greeter-host-example --socket /tmp/greeter.sock --data-dir /tmp/greeter-data
//   channelbridge call example/greeter greet '{"name": "Ada"}' --socket /tmp/greeter.sock
//   channelbridge list example/greeter --socket /tmp/greeter.sock

import ChannelBridgeHost
import ChannelBridgePlatform
import ChannelBridgePlugins
import GreeterPlugin

// Process-wide policy, as `extension-host` decides it.
ProcessSignals.ignoreBrokenPipes()

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
    print("""
        usage: greeter-host-example [extension-host options]

        An extension host that also serves GreeterPlugin on example/greeter (selectable with
        --plugin GreeterPlugin). It takes extension-host's options and prints what it prints;
        they follow.

        """ + HostOptions.usageText)
    ProcessExit.normally(0)
}

// By name, like the built-in plugins.
let plugins = HostPlugins(catalogue: PluginCatalogue([GreeterPlugin.pluginKey: GreeterPlugin.self]))
let interruptions = HostSignal.watch(onRepeat: { ProcessExit.immediately($0.exitStatus) })
ProcessExit.normally(await ExtensionHostCommand.main(arguments: arguments, interruptions: interruptions, plugins: plugins))
