import ChannelBridgeChannels
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSocket
import ChannelBridgeStore

/// An idle worker's rehearsal of a session (Protocol/extension-host.md §1.8), before it tells the
/// host it is ready: over a socket pair of its own, a session set up as a client's would be (the
/// built-in plugins, the extension channel, the echo channel), a client on the other end that says
/// HELLO, asks for the input items and says GOODBYE, and the session's teardown.
///
/// The first session of a process pays for what the Swift runtime and the dynamic linker do once
/// (protocol conformance lookups, generic metadata, lazily bound symbols): about 2 ms of a
/// release build's time between the hand-off and the HELLO. Rehearsed, a client's session finds
/// them done. Only this project's plugins take part: the host's own plugins may do things on
/// registration a client would see (a `setUpSession` that runs a view controller's
/// `viewDidLoad`), so they register only for real clients. Nothing the rehearsal does reaches the
/// host or the request: the input items are read, never changed; its log lines are dropped.
enum WorkerWarmUp {
    static func run(
        options: HostOptions, catalogue: PluginCatalogue, pluginKeys: [String], request: ExtensionRequest,
        store: AppGroupStore
    ) async {
        guard let pair = DescriptorPassing.socketPair() else { return }
        let silent = HostOutput(standardOutput: { _ in }, standardError: { _ in })
        let setup = SessionSetup(
            options: options, pluginKeys: pluginKeys.filter { BuiltInPlugins.catalogue.keys.contains($0) },
            catalogue: BuiltInPlugins.catalogue, setUpSession: nil, request: request, store: store,
            sessions: SessionTable(), output: silent)
        let gate = ExtensionRequest.sessionGate(extensionChannel: options.channel)
        let session = LockedValue<HostSession?>(nil)
        let host: SocketConnection
        let client: SocketConnection
        do {
            host = try SocketConnection.adopt(
                fd: pair.0, role: .host, path: "warm-up", options: options.sessionConnectionOptions(gate: gate)
            ) { connection in
                let opened = setup.open(connection, id: 0)
                session.withLock { $0 = opened }
            }
        } catch {
            Syscalls.closeDescriptor(pair.1)
            return
        }
        do {
            client = try SocketConnection.adopt(
                fd: pair.1, role: .client, path: "warm-up",
                options: WorkerChannel.connectionOptions(name: "extension-host worker warm-up"))
        } catch {
            host.close()
            await host.waitUntilClosed()
            return
        }
        _ = try? await client.messenger.waitForPeerHello()
        let channel = MethodChannel(name: options.channel, messenger: client.messenger)
        _ = try? await channel.invokeMethod("getInputItems")
        client.close()
        await client.waitUntilClosed()
        await host.waitUntilClosed()
        await session.withLock { $0 }?.tearDown()
    }
}
