import ChannelBridgePlugins
import ChannelBridgeTesting
import Testing

private enum CountKey: PluginEnvironmentKey {
    static let defaultValue = 7
}

private enum NameKey: PluginEnvironmentKey {
    static let defaultValue: String? = nil
}

@Suite struct PluginEnvironmentTests {
    @Test func defaultsUntilSetThenTheValueSet() {
        var environment = PluginEnvironment()
        #expect(environment[CountKey.self] == 7)
        #expect(environment[NameKey.self] == nil)
        #expect(!environment.contains(CountKey.self))

        environment[CountKey.self] = 3
        #expect(environment[CountKey.self] == 3)
        #expect(environment.contains(CountKey.self))
        #expect(environment[NameKey.self] == nil)  // keys do not share storage

        let copy = environment.setting(NameKey.self, to: "host")
        #expect(copy[NameKey.self] == "host")
        #expect(copy[CountKey.self] == 3)
        #expect(environment[NameKey.self] == nil)  // a value type: the original is unchanged
    }

    @Test func registrarsSeeTheRegistryEnvironment() throws {
        let registry = PluginRegistry(
            messenger: RecordingMessenger(),
            environment: PluginEnvironment().setting(CountKey.self, to: 99))
        let registrar = try registry.registrar(forPlugin: "A")
        #expect(registrar.environment[CountKey.self] == 99)
        #expect(registry.environment[CountKey.self] == 99)
    }
}
