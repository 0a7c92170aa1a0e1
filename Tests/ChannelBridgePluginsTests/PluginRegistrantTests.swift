import ChannelBridgeChannels
import ChannelBridgePlugins
import ChannelBridgeTesting
import Testing

@Suite struct PluginRegistrantTests {
    private func catalogue() throws -> PluginCatalogue {
        try PluginCatalogue([BetaPlugin.self, AlphaPlugin.self, RenamedPlugin.self])
    }

    @Test func catalogueFilesTypesUnderTheirKeys() throws {
        let catalogue = try catalogue()
        #expect(catalogue.keys == ["AlphaPlugin", "BetaPlugin", "io.example.renamed"])
        #expect(catalogue["AlphaPlugin"] == AlphaPlugin.self)
        #expect(catalogue["RenamedPlugin"] == nil)

        let error = try #require(throws: PluginError.self) {
            try PluginCatalogue([AlphaPlugin.self, AlphaPlugin.self])
        }
        #expect(error.code == .duplicateKey)
        #expect(error.message == "The catalogue already has a plugin named 'AlphaPlugin'")

        var byName = PluginCatalogue(["Short": BetaPlugin.self])
        try byName.add(AlphaPlugin.self, as: "Other")
        #expect(byName.keys == ["Other", "Short"])
    }

    @Test func registersByNameInTheOrderGiven() async throws {
        let probe = Probe()
        let registry = PluginRegistry(
            messenger: RecordingMessenger(),
            environment: PluginEnvironment().setting(ProbeKey.self, to: probe))
        try await PluginRegistrant(catalogue: catalogue()).register(
            ["io.example.renamed", "BetaPlugin"], with: registry)
        #expect(registry.pluginKeys == ["io.example.renamed", "BetaPlugin"])
        #expect(!registry.hasPlugin("AlphaPlugin"))
        #expect(probe.entries == ["Renamed.register as io.example.renamed", "Beta.register as BetaPlugin"])
    }

    @Test func registersEveryKnownPluginInKeyOrder() async throws {
        let registry = PluginRegistry(messenger: RecordingMessenger())
        try await PluginRegistrant(catalogue: catalogue()).register(with: registry)
        #expect(registry.pluginKeys == ["AlphaPlugin", "BetaPlugin", "io.example.renamed"])
    }

    @Test func anUnknownNameListsTheKnownOnesAndRegistersNothing() async throws {
        let registry = PluginRegistry(messenger: RecordingMessenger())
        let error = try await #require(throws: PluginError.self) {
            try await PluginRegistrant(catalogue: catalogue()).register(["BetaPlugin", "NoSuchPlugin"], with: registry)
        }
        #expect(error.code == .unknownPlugin)
        #expect(error.key == "NoSuchPlugin")
        #expect(error.knownKeys == ["AlphaPlugin", "BetaPlugin", "io.example.renamed"])
        #expect(
            error.description
                == "unknownPlugin: No plugin named 'NoSuchPlugin'; known plugins: AlphaPlugin, BetaPlugin, io.example.renamed"
        )
        #expect(registry.pluginKeys.isEmpty)

        let empty = try #require(throws: PluginError.self) { try PluginCatalogue().plugin(named: "X") }
        #expect(empty.message == "No plugin named 'X'; known plugins: none")
    }

    @Test func aNameTwiceOrAlreadyRegisteredRegistersNothing() async throws {
        let registry = PluginRegistry(messenger: RecordingMessenger())
        let registrant = try PluginRegistrant(catalogue: catalogue())
        let twice = try await #require(throws: PluginError.self) {
            try await registrant.register(["AlphaPlugin", "BetaPlugin", "AlphaPlugin"], with: registry)
        }
        #expect(twice.code == .duplicateKey)
        #expect(twice.key == "AlphaPlugin")
        #expect(registry.pluginKeys.isEmpty)

        try await registrant.register(["BetaPlugin"], with: registry)
        let again = try await #require(throws: PluginError.self) {
            try await registrant.register(["AlphaPlugin", "BetaPlugin"], with: registry)
        }
        #expect(again.code == .duplicateKey)
        #expect(again.key == "BetaPlugin")
        #expect(registry.pluginKeys == ["BetaPlugin"])
    }

    @Test func aFailingPluginStopsTheRegistrationThere() async throws {
        let messenger = RecordingMessenger()
        let registry = PluginRegistry(messenger: messenger)
        var catalogue = try catalogue()
        try catalogue.add(FailingPlugin.self)
        let error = try await #require(throws: PluginError.self) {
            try await PluginRegistrant(catalogue: catalogue).register(
                ["BetaPlugin", "FailingPlugin", "AlphaPlugin"],
                with: registry)
        }
        #expect(error.code == .registrationFailed)
        #expect(error.key == "FailingPlugin")
        #expect(registry.pluginKeys == ["BetaPlugin"])
        #expect(!messenger.hasHandler(onChannel: FailingPlugin.channelName))
        #expect(!messenger.hasHandler(onChannel: AlphaPlugin.channelName))
    }
}
