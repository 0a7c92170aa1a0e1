import ChannelBridge
import ChannelBridgeHost

enum GreeterPlugin: Plugin {
    static func register(with registrar: PluginRegistrar) throws {
        registrar.addMethodCallDelegate(MethodRouter { router in
            router.on("greet") { (greeting: [String: String]) in "Hello, \(greeting["name"] ?? "you")!" }
        }, channel: MethodChannel(name: "example/greeter", messenger: registrar.messenger))
    }
}

let plugins = HostPlugins(catalogue: PluginCatalogue(["GreeterPlugin": GreeterPlugin.self]))
await ExtensionHostCommand.main(plugins: plugins)    // extension-host's options, signals and exit status
