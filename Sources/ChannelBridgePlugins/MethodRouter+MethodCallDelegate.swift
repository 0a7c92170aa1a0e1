import ChannelBridgeChannels

/// A `MethodRouter` is a plugin's method-call delegate as it is: its `handle(_:)` answers each call.
///
/// ```swift
/// registrar.addMethodCallDelegate(MethodRouter { router in
///     router.on("greet") { (greeting: Greeting) in "Hello, \(greeting.name)!" }
/// }, channel: MethodChannel(name: "example/greeter", messenger: registrar.messenger))
/// ```
extension MethodRouter: MethodCallDelegate {}
