// Seed 000's share extension, as plugin code written for iOS runs here: an extension host with
// the seed's extension channel, an iOS-style plugin registered through the seed's plugin
// registrant, and an iOS-style plugin registered by name next to the built-in native ones.
// It takes `extension-host`'s options and prints what it prints.
//
//   flutter-style-plugin-example --socket /tmp/share.sock --data-dir /tmp/share-data
//   channelbridge call example/notes add '{"text": "first"}' --socket /tmp/share.sock
//   channelbridge call share_extension exit --socket /tmp/share.sock
//
// This executable links the `Flutter` module (and with it full Foundation); the stock
// `extension-host` does not, so it cannot load these plugins (Protocol/flutter-embedder.md §6).

import ChannelBridge
import ChannelBridgeHost
import Flutter

// By name, like the built-in plugins: `--plugin PlatformVersionPlugin` selects it.
var catalogue = PluginCatalogue()
try catalogue.addFlutterPlugins([PlatformVersionPlugin.self])

let plugins = HostPlugins(catalogue: catalogue) { registry in
    // What the share extension does when its view loads, once per session (one engine each).
    let context = registry.environment.extensionRequest.map(ExtensionContext.init)
    ShareViewController(engine: FlutterEngine.engine(for: registry), extensionContext: context).viewDidLoad()
}

// Process-wide policy, as `extension-host` decides it (signals, exit status, a trapping handler's
// last line), and extension-host's options; the main thread runs the main run loop, where the
// plugins' handlers run, as in an iOS app (so the top-level code stays synchronous).
FlutterRunLoop.runMain {
    await ExtensionHostCommand.main(
        plugins: plugins,
        help: """
            usage: flutter-style-plugin-example [extension-host options]

            Seed 000's share extension written for iOS (`import Flutter`): an extension host that also
            serves the share_extension channel, example/notes (registered through a registrant) and
            PlatformVersionPlugin (by name). It takes extension-host's options and prints what it
            prints; they follow.
            """)
}
