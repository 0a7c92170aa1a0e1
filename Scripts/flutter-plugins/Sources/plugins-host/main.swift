import ChannelBridgeHost
import Flutter
import path_provider_foundation
import shared_preferences_foundation

// An app's plugins as Flutter's generated registrant registers them on iOS, once per session with
// the session's engine; the plugins' own Swift files are compiled as they are, after
// `channelbridge pigeon adapt`.
let plugins = HostPlugins { registry in
    let engine = FlutterEngine.engine(for: registry)
    SharedPreferencesPlugin.register(with: engine.registrar(forPlugin: "SharedPreferencesPlugin")!)
    PathProviderPlugin.register(with: engine.registrar(forPlugin: "PathProviderPlugin")!)
}
// extension-host's options, signals and exit status, with the main thread running the main run
// loop where the plugins' handlers run, as in an iOS app.
FlutterRunLoop.runMain {
    await ExtensionHostCommand.main(plugins: plugins)
}
