// A plugin of your own served to `channelbridge`: an extension host (the stock one's options,
// socket and built-in plugins) that also registers GreeterPlugin in every session.
//
//   greeter-host-example --socket /tmp/greeter.sock --data-dir /tmp/greeter-data
//   channelbridge call example/greeter greet '{"name": "Ada"}' --socket /tmp/greeter.sock
//   channelbridge list example/greeter --socket /tmp/greeter.sock

import ChannelBridge
import ChannelBridgeHost
import GreeterPlugin

// By name, like the built-in plugins.
let plugins = HostPlugins(catalogue: PluginCatalogue([GreeterPlugin.pluginKey: GreeterPlugin.self]))
// Process-wide policy, as `extension-host` decides it, and extension-host's options.
await ExtensionHostCommand.main(
    plugins: plugins,
    help: """
        usage: greeter-host-example [extension-host options]

        An extension host that also serves GreeterPlugin on example/greeter (selectable with
        --plugin GreeterPlugin). It takes extension-host's options and prints what it prints;
        they follow.
        """)
