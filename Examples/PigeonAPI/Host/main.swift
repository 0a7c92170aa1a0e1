// The Pigeon API of Examples/PigeonAPI (Pigeon 28.0.0's Swift output for pigeons/share_api.dart,
// adapted with `channelbridge pigeon adapt`; the same files, linked here) served by an extension
// host: `ShareHostApiSetup.setUp(binaryMessenger:api:)` runs once per session on that session's
// FlutterEngine, as an iOS app's plugin registration does, beside the host's built-in plugins and
// channels. It takes extension-host's options.
//
// A host with plugins of its own runs each session in a worker process of its own by default
// (`--isolation session`, Protocol/extension-host.md §1.8). Pigeon's generated code force-casts
// what it reads, as on iOS: a well-formed message of the wrong shape (`["x", 1]` to `add`, which
// declares two ints) traps. That ends the sender's session alone, with GOODBYE `sessionCrashed`
// naming the signal and the channel; every other session goes on.
//
//   pigeon-host-example --socket SOCKET [extension-host options]

import ChannelBridgeHost
import Flutter

let plugins = HostPlugins { registry in
    let engine = FlutterEngine.engine(for: registry)
    let api = ShareHostApiImplementation(flutterApi: ShareFlutterApi(binaryMessenger: engine), report: { _ in })
    ShareHostApiSetup.setUp(binaryMessenger: engine, api: api)
}

FlutterRunLoop.runMain {
    await ExtensionHostCommand.main(
        plugins: plugins,
        help: """
            usage: pigeon-host-example [extension-host options]

            An extension host that also serves the ShareHostApi of Examples/PigeonAPI (Pigeon's
            generated Swift) in every session, each session in a worker process of its own unless
            given --isolation none.
            """)
}
