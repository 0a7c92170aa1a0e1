import ChannelBridge
import ChannelBridgeHost
import Flutter

// Plugins by name, like the built-in ones (`--plugin BatteryPlugin` selects it) …
var catalogue = PluginCatalogue()
try catalogue.addFlutterPlugins([BatteryPlugin.self])
// … and through a registrant, once per session, with the session's engine.
let plugins = HostPlugins(catalogue: catalogue) { registry in
    GeneratedPluginRegistrant.register(with: FlutterEngine.engine(for: registry))
}
// extension-host's options and output, its handling of signals and its exit status: one call,
// with the main thread running the main run loop, where the plugins' handlers run, as in an
// iOS app (the top-level code stays synchronous: no `await` outside this closure).
FlutterRunLoop.runMain {
    await ExtensionHostCommand.main(plugins: plugins)
}
