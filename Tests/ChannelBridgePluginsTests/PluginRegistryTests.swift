import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing
import ChannelBridgeMessenger

@Suite struct PluginRegistryTests {
    @Test func registeringAKeyTwiceIsATypedError() throws {
        let registry = PluginRegistry(messenger: RecordingMessenger())
        _ = try registry.registrar(forPlugin: "SharedPreferenceAppGroupPlugin")
        let error = try #require(throws: PluginError.self) {
            try registry.registrar(forPlugin: "SharedPreferenceAppGroupPlugin")
        }
        #expect(error.code == .duplicateKey)
        #expect(error.key == "SharedPreferenceAppGroupPlugin")
        #expect(
            error.description
                == "duplicateKey: A plugin is already registered under the key 'SharedPreferenceAppGroupPlugin'")
        #expect(registry.pluginKeys == ["SharedPreferenceAppGroupPlugin"])
    }

    @Test func hasPluginAndPublishedValues() throws {
        let registry = PluginRegistry(messenger: RecordingMessenger())
        #expect(!registry.hasPlugin("A"))
        #expect(registry.valuePublished(byPlugin: "A") == nil)  // never registered

        let registrar = try registry.registrar(forPlugin: "A")
        #expect(registrar.key == "A")
        #expect(registry.hasPlugin("A"))
        let nothing = try #require(registry.valuePublished(byPlugin: "A"))  // registered, published nothing
        guard case .nothing = nothing else { Issue.record("expected .nothing, got \(nothing)"); return }
        #expect(nothing.value == nil)

        registrar.publish(42)
        #expect(registry.valuePublished(byPlugin: "A")?.value(as: Int.self) == 42)
        registrar.publish("replaced")
        #expect(registry.valuePublished(byPlugin: "A")?.value(as: String.self) == "replaced")
        #expect(registry.valuePublished(byPlugin: "A")?.value(as: Int.self) == nil)
        #expect(!registry.hasPlugin("B"))
        #expect(registry.valuePublished(byPlugin: "B") == nil)
    }

    @Test func registerUsesThePluginKeyAndTheEnvironment() async throws {
        let probe = Probe()
        var environment = PluginEnvironment()
        environment.probe = probe
        let messenger = RecordingMessenger()
        let registry = PluginRegistry(messenger: messenger, environment: environment)
        try await registry.register(BetaPlugin.self)
        try await registry.register(RenamedPlugin.self)
        try await registry.register(BetaPlugin.self, forKey: "SecondBeta")
        #expect(registry.pluginKeys == ["BetaPlugin", "io.example.renamed", "SecondBeta"])
        #expect(
            probe.entries == [
                "Beta.register as BetaPlugin", "Renamed.register as io.example.renamed",
                "Beta.register as SecondBeta",
            ])
        #expect(registry.valuePublished(byPlugin: "BetaPlugin")?.value(as: String.self) == "published by Beta")
        let registrar = try registry.registrar(forPlugin: "Other")
        #expect(registrar.messenger === messenger)

        let error = try await #require(throws: PluginError.self) { try await registry.register(BetaPlugin.self) }
        #expect(error.code == .duplicateKey)
        #expect(error.key == "BetaPlugin")
    }

    @Test func registrarRoutesAMethodChannelToTheDelegate() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let registry = PluginRegistry(messenger: host)
        try await registry.register(AlphaPlugin.self)
        let channel = MethodChannel(name: AlphaPlugin.channelName, messenger: client)
        try await withHangGuard { () async throws in
            #expect(try await channel.invokeMethod("echo", arguments: ["n": 1]) == ["n": 1])
            await #expect(throws: MethodError(code: "FAILED", message: "asked to fail", details: "x")) {
                try await channel.invokeMethod("fail", arguments: "x")
            }
            await #expect(throws: MethodError(code: "error", message: "boom")) {
                try await channel.invokeMethod("boom")
            }
            let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("unknown") }
            #expect(error.code == .notImplemented)
            #expect(error.channel == AlphaPlugin.channelName)
            #expect(error.method == "unknown")
        }
    }

    @Test func tearDownRemovesHandlersAndRunsEachHookOnce() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let probe = Probe()
        let registry = PluginRegistry(
            messenger: host, environment: PluginEnvironment().setting(ProbeKey.self, to: probe))
        try await registry.register(AlphaPlugin.self)
        try await registry.register(BetaPlugin.self)
        let channel = MethodChannel(name: AlphaPlugin.channelName, messenger: client)
        try await withHangGuard { () async throws in
            #expect(try await channel.invokeMethod("echo", arguments: 1) == 1)
            #expect(!registry.isTornDown)

            async let first: Void = registry.tearDown()
            async let second: Void = registry.tearDown()
            _ = await (first, second)
            await registry.tearDown()
            #expect(registry.isTornDown)
            #expect(
                probe.entries == [
                    "Alpha.register as AlphaPlugin", "Beta.register as BetaPlugin",
                    "Alpha.teardown.1", "Alpha.teardown.2", "Beta.teardown",
                ])

            let error = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("echo") }
            #expect(error.code == .notImplemented)
            // Keys and publications stay readable after teardown.
            #expect(registry.hasPlugin("AlphaPlugin"))
            #expect(registry.valuePublished(byPlugin: "BetaPlugin")?.value(as: String.self) == "published by Beta")
        }
    }

    @Test func aSecondTearDownWaitsForTheFirst() async throws {
        let registry = PluginRegistry(messenger: RecordingMessenger())
        let registrar = try registry.registrar(forPlugin: "Slow")
        let log = Inbox<String>()
        let gate = Inbox<Void>()
        registrar.addTeardownHook {
            log.put("hook started")
            await gate.next()
            log.put("hook finished")
        }
        try await withHangGuard { () async throws in
            let first = Task { await registry.tearDown() }
            #expect(await log.next() == "hook started")
            // Runs until it suspends: a second call that did not wait for the first would have
            // returned (and logged) before the gate opens.
            let second = Task.immediate {
                await registry.tearDown()
                log.put("second returned")
            }
            gate.put(())
            await first.value
            await second.value
            #expect(await log.next() == "hook finished")
            #expect(await log.next() == "second returned")
        }
    }

    @Test func tearDownEndsEventStreams() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let probe = Probe()
        let registry = PluginRegistry(
            messenger: host, environment: PluginEnvironment().setting(ProbeKey.self, to: probe))
        try await registry.register(TickerPlugin.self)
        try await withHangGuard { () async throws in
            let stream = EventChannel(name: TickerPlugin.channelName, messenger: client)
                .receiveBroadcastStream(arguments: "go")
            var events = stream.makeAsyncIterator()
            #expect(try await events.next() == .success("go"))
            await registry.tearDown()
            #expect(try await events.next() == nil)  // end of stream
            #expect(await probe.streamCalls.next() == "listen \"go\"")
            #expect(await probe.streamCalls.next() == "cancel \"go\"")
        }
    }

    @Test func aTornDownRegistryTakesNothingMore() async throws {
        let messenger = RecordingMessenger()
        let probe = Probe()
        let registry = PluginRegistry(messenger: messenger)
        let early = try registry.registrar(forPlugin: "Early")
        await registry.tearDown()

        let error = try #require(throws: PluginError.self) { try registry.registrar(forPlugin: "Late") }
        #expect(error.code == .registryTornDown)
        #expect(error.key == "Late")
        #expect(!registry.hasPlugin("Late"))

        // A registrar kept from before installs nothing now, and a new hook runs at once.
        early.addMethodCallDelegate(EchoDelegate(), channel: MethodChannel(name: "test/late", messenger: messenger))
        #expect(!messenger.hasHandler(onChannel: "test/late"))
        let ran = Inbox<String>()
        early.addTeardownHook { ran.put("late hook") }
        try await withHangGuard { #expect(await ran.next() == "late hook") }
        #expect(probe.entries.isEmpty)
    }

    @Test func aFailedRegistrationLeavesNothingBehind() async throws {
        let messenger = RecordingMessenger()
        let probe = Probe()
        let registry = PluginRegistry(
            messenger: messenger, environment: PluginEnvironment().setting(ProbeKey.self, to: probe))
        let error = try await #require(throws: PluginError.self) { try await registry.register(FailingPlugin.self) }
        #expect(error.code == .registrationFailed)
        #expect(error.key == "FailingPlugin")
        #expect(error.message == "The plugin 'FailingPlugin' failed to register: refused on purpose")
        #expect(error.underlying is Refusal)
        #expect(!registry.hasPlugin("FailingPlugin"))
        #expect(registry.pluginKeys.isEmpty)
        #expect(!messenger.hasHandler(onChannel: FailingPlugin.channelName))
        #expect(probe.entries == ["Failing.teardown"])

        // The key is free again; teardown does not run the failed plugin's hook a second time.
        _ = try registry.registrar(forPlugin: "FailingPlugin")
        await registry.tearDown()
        #expect(probe.entries == ["Failing.teardown"])
    }

    @Test func delegateHandlersAreRemovedOnlyIfStillTheirs() async throws {
        let messenger = RecordingMessenger()
        let registry = PluginRegistry(messenger: messenger)
        let registrar = try registry.registrar(forPlugin: "A")
        registrar.addMethodCallDelegate(
            EchoDelegate(), channel: MethodChannel(name: "test/shared", messenger: messenger))
        // Someone else takes the channel over; teardown must leave their handler alone.
        MethodChannel(name: "test/shared", messenger: messenger).setMethodCallHandler { _ in "theirs" }
        await registry.tearDown()
        #expect(messenger.hasHandler(onChannel: "test/shared"))
    }
}
