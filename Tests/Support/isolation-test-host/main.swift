// An extension host with a plugin that traps on request (`CrashPlugin`, channel `test/crash`),
// for the tests of session isolation (Protocol/extension-host.md §1.8). It takes extension-host's
// options.

import ChannelBridgeHost
import ChannelBridgePlugins
import Flutter

var catalogue = PluginCatalogue()
try catalogue.addFlutterPlugins([CrashPlugin.self])

FlutterRunLoop.runMain {
    await ExtensionHostCommand.main(plugins: HostPlugins(catalogue: catalogue))
}
