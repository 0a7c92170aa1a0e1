import ChannelBridgeHost
import Flutter
import test_plugin

// Pigeon's own test plugin, registered in every session as Flutter's generated registrant does on
// iOS; its Swift is compiled as Pigeon checks it in, after `channelbridge pigeon adapt` and with
// its @ProxyApi parts left out (check.sh says which lines).
let plugins = HostPlugins { registry in
    let engine = FlutterEngine.engine(for: registry)
    TestPlugin.register(with: engine.registrar(forPlugin: "TestPlugin")!)
}
// The main thread runs the main run loop, where handlers without a task queue run and where the
// plugin's timers fire, as in an iOS app.
FlutterRunLoop.runMain {
    await ExtensionHostCommand.main(plugins: plugins)
}
