// swift-tools-version:6.2
import PackageDescription

// A user's own package, outside ChannelBridge's: it depends on this checkout by path and uses
// public API only. Each `main.swift` is a block of the README, byte for byte
// (`OutsidePackageTests` checks); `.ci/run` builds the package.
//
//   swift build --package-path Examples/OutsidePackage
let package = Package(
    name: "OutsidePackage",
    // A checkout of ChannelBridge, named: the identity of a path dependency is its folder's name.
    dependencies: [.package(name: "ChannelBridge", path: "../..")],
    targets: [
        // README "Flutter's iOS API": Flutter-style plugins served by a host of one's own.
        .executableTarget(name: "flutter-host", dependencies: [
            .product(name: "ChannelBridgeHost", package: "ChannelBridge"),    // ExtensionHostCommand, HostPlugins
            .product(name: "ChannelBridge", package: "ChannelBridge"),        // PluginCatalogue
            .product(name: "Flutter", package: "ChannelBridge"),              // import Flutter
        ]),
        // README "Serving a plugin of your own": a ChannelBridge plugin served the same way.
        .executableTarget(name: "greeter-host", dependencies: [
            .product(name: "ChannelBridgeHost", package: "ChannelBridge"),    // ExtensionHostCommand, HostPlugins
            .product(name: "ChannelBridge", package: "ChannelBridge"),        // Plugin, MethodChannel, MethodRouter
        ]),
    ]
)
