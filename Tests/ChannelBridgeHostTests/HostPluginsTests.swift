import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeHost
import ChannelBridgePlugins
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// A plugin a custom host adds beside the built-in ones.
struct ExtraPlugin: Plugin, MethodCallDelegate {
    static func register(with registrar: PluginRegistrar) throws {
        registrar.addMethodCallDelegate(
            ExtraPlugin(), channel: MethodChannel(name: "test/extra", messenger: registrar.messenger))
    }

    func handle(_ call: MethodCall) async throws -> StandardValue {
        .string("extra \(call.method)")
    }
}

/// `HostPlugins`: what a custom host registers in every session.
@Suite(.serialized) struct HostPluginsTests {
    static func options(_ directory: TestDirectory, plugins: [String]? = nil) -> HostOptions {
        HostOptions(socketPath: directory.socket, dataDirectory: directory.data, plugins: plugins)
    }

    static let quiet = HostOutput(standardOutput: { _ in }, standardError: { _ in })

    @Test func extraPluginsAndTheSessionSetupRunInEverySession() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let setUps = Collector<Bool>()
        let plugins = HostPlugins(catalogue: try PluginCatalogue([ExtraPlugin.self])) { registry in
            setUps.append(
                registry.hasPlugin("ExtraPlugin") && registry.hasPlugin("SharedPreferenceAppGroupPlugin")
                    && registry.environment.extensionRequest != nil)
        }
        let host = try await ExtensionHost.start(options: Self.options(directory), output: Self.quiet, plugins: plugins)
        let running = Task { await host.run() }
        try await withHangGuard { () async throws in
            for _ in 0..<2 {
                let connection = try await SocketConnection.connect(
                    to: directory.socket, options: HostTesting.clientOptions)
                let reply = try await MethodChannel(name: "test/extra", messenger: connection.messenger).invokeMethod(
                    "hello")
                #expect(reply == "extra hello")
                connection.close()
            }
            let seen = try await setUps.first(2)
            #expect(seen == [true, true])
            host.interrupt(.sigterm)
            #expect(await running.value.outcome == .interrupted(.sigterm))
        }
    }

    @Test func pluginSelectsAmongTheHostsPluginsToo() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let plugins = HostPlugins(catalogue: try PluginCatalogue([ExtraPlugin.self]))
        let host = try await ExtensionHost.start(
            options: Self.options(directory, plugins: ["ExtraPlugin"]),
            output: Self.quiet, plugins: plugins)
        let running = Task { await host.run() }
        try await withHangGuard { () async throws in
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            let reply = try await MethodChannel(name: "test/extra", messenger: connection.messenger).invokeMethod("x")
            #expect(reply == "extra x")
            await #expect(throws: ChannelError.self) {
                try await MethodChannel(name: "shared_preference_app_group", messenger: connection.messenger)
                    .invokeMethod("getAll")
            }
            connection.close()
            host.interrupt(.sigterm)
            _ = await running.value
        }
    }

    @Test func aPluginNamedLikeABuiltInOneIsRefused() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        var catalogue = PluginCatalogue()
        try catalogue.add(ExtraPlugin.self, as: "SharedPreferenceAppGroupPlugin")
        await #expect(
            throws: HostError(
                .unknownPlugin, "the host's plugin 'SharedPreferenceAppGroupPlugin' has the name of a built-in plugin")
        ) {
            _ = try await ExtensionHost.start(
                options: Self.options(directory), output: Self.quiet,
                plugins: HostPlugins(catalogue: catalogue))
        }
    }
}
