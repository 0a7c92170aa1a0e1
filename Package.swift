// swift-tools-version:6.2
import PackageDescription

/// Every target compiles in the Swift 6 language mode, with `any` on every existential
/// (`ExistentialAny`) and members visible only from modules a file imports
/// (`MemberImportVisibility`), through this one array.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// `LockedValue` is a `Synchronization.Mutex`, except in builds for ThreadSanitizer, which cannot see
/// that lock: `Scripts/sanitize` sets CHANNELBRIDGE_PTHREAD_LOCKS and it becomes a `pthread_mutex_t`.
let platformLocks: [SwiftSetting] =
    Context.environment["CHANNELBRIDGE_PTHREAD_LOCKS"] != nil ? [.define("CHANNELBRIDGE_PTHREAD_LOCKS")] : []

// Linux only (README "Platform"): no `platforms`, as nothing here is built or tested on another OS.
let package = Package(
    name: "ChannelBridge",
    // A plugin, a client or a containing app imports `ChannelBridge`; a host of one's own adds
    // `ChannelBridgeHost`, a plugin's tests `ChannelBridgeTesting`, and Flutter-style plugin code
    // `Flutter`. The per-layer modules under `ChannelBridge` are targets, not products.
    products: [
        .library(name: "ChannelBridge", targets: ["ChannelBridge"]),
        .library(name: "ChannelBridgeHost", targets: ["ChannelBridgeHost"]),
        .library(name: "ChannelBridgeTesting", targets: ["ChannelBridgeTesting"]),
        .library(name: "ChannelBridgeConformance", targets: ["ChannelBridgeConformance"]),
        .library(name: "Flutter", targets: ["Flutter"]),
        .executable(name: "extension-host", targets: ["extension-host"]),
        .executable(name: "channelbridge", targets: ["channelbridge"]),
    ],
    targets: [
        // The floor under everything (as NIOConcurrencyHelpers is under NIOCore), where OS calls belong and the
        // only module of Sources/ that imports Glibc (the store's files are still to move): threads for blocking
        // work, `LockedValue` (the lock ThreadSanitizer sees), socket, file, poll and process calls (`Syscalls`,
        // `FileCalls`, `Errno`), and the mechanisms executables use for process policy (`ProcessSignals`,
        // `ProcessExit`, `AllocatorTuning`).
        .target(name: "ChannelBridgePlatform", dependencies: ["CChannelBridgeSyscalls"], swiftSettings: strict + platformLocks),
        // Under it, in C: the socket's `read` and `send` without glibc's thread-cancellation
        // bookkeeping. Only ChannelBridgePlatform imports it.
        .target(name: "CChannelBridgeSyscalls",
                cSettings: Context.environment["CHANNELBRIDGE_PTHREAD_LOCKS"] != nil ? [.define("CB_LIBC_IO")] : []),
        // The one payload type (`Payload`: owned or lent storage, a readable range, segments) that the
        // codec encodes into and the messenger sends and receives; no dependencies, no Glibc.
        .target(name: "ChannelBridgeBytes", swiftSettings: strict),
        // Leaves above it: the codecs (values, bytes, TVN) and the messenger (frames, sessions),
        // independent of each other; both speak `Payload`. Neither imports Glibc.
        .target(name: "ChannelBridgeCodec", dependencies: ["ChannelBridgeBytes"], swiftSettings: strict),
        .target(name: "ChannelBridgeMessenger", dependencies: ["ChannelBridgeBytes", "ChannelBridgePlatform"], swiftSettings: strict),
        // Flutter's channels on top of both leaves.
        .target(name: "ChannelBridgeChannels",
                dependencies: ["ChannelBridgeBytes", "ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgePlatform"], swiftSettings: strict),
        // Unix sockets: the transport under the messenger.
        .target(name: "ChannelBridgeSocket", dependencies: ["ChannelBridgeMessenger", "ChannelBridgePlatform"],
                swiftSettings: strict),
        // Channel contracts (Protocol/transcript.md): the transcript model, its reader and its matchers.
        .target(name: "ChannelBridgeContracts",
                dependencies: ["ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgePlatform"],
                swiftSettings: strict),
        // In-memory transports and test doubles (MockHost serves a transcript), shipped as a product.
        .target(name: "ChannelBridgeTesting",
                dependencies: ["ChannelBridgeBytes", "ChannelBridgeMessenger", "ChannelBridgeChannels", "ChannelBridgeCodec", "ChannelBridgePlatform",
                               "ChannelBridgeContracts"],
                swiftSettings: strict),
        // Golden vectors and the runner that checks a codec implementation against them.
        .target(name: "ChannelBridgeConformance", dependencies: ["ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgePlatform"],
                swiftSettings: strict),
        // The app-group preference store: durable, multi-process-safe files (flock, fsync, inotify).
        .target(name: "ChannelBridgeStore", dependencies: ["ChannelBridgeCodec", "ChannelBridgePlatform"],
                swiftSettings: strict),
        // Plugins registered by name on a messenger, as Flutter's generated registrant does.
        .target(name: "ChannelBridgePlugins",
                dependencies: ["ChannelBridgeChannels", "ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgePlatform"],
                swiftSettings: strict),
        // The shared_preference_app_group plugin over the store.
        .target(name: "ChannelBridgeSharedPreferences",
                dependencies: ["ChannelBridgePlugins", "ChannelBridgeChannels", "ChannelBridgeStore", "ChannelBridgeCodec",
                               "ChannelBridgePlatform"], swiftSettings: strict),
        // The extension host's logic; the executable is a thin shell around it.
        .target(name: "ChannelBridgeHost",
                dependencies: ["ChannelBridgeBytes", "ChannelBridgePlugins", "ChannelBridgeSharedPreferences", "ChannelBridgeSocket",
                               "ChannelBridgeChannels", "ChannelBridgeStore", "ChannelBridgeCodec", "ChannelBridgeMessenger",
                               "ChannelBridgePlatform"],
                swiftSettings: strict),
        .executableTarget(name: "extension-host", dependencies: ["ChannelBridgeHost", "ChannelBridgePlatform"], swiftSettings: strict),
        // Drives an extension host from another process: typed calls over the socket.
        .target(name: "ChannelBridgeClient",
                dependencies: ["ChannelBridgeSocket", "ChannelBridgeChannels", "ChannelBridgeCodec", "ChannelBridgeMessenger",
                               "ChannelBridgePlatform"],
                swiftSettings: strict),
        // The umbrella module (`import ChannelBridge`): re-exports the layers a plugin, a client or a
        // containing app is written with; declares nothing of its own.
        .target(name: "ChannelBridge",
                dependencies: ["ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgeChannels", "ChannelBridgePlugins",
                               "ChannelBridgeSocket", "ChannelBridgeClient", "ChannelBridgeStore",
                               "ChannelBridgeSharedPreferences"],
                swiftSettings: strict),
        // Depends on `extension-host`, which `demo` and `stress` start, so that SwiftPM builds it beside it: built,
        // not linked. The benchmarks are a package of their own, Benchmarks/, built on this one's products.
        .executableTarget(name: "channelbridge", dependencies: ["ChannelBridgeCodec", "ChannelBridgeConformance", "ChannelBridgeChannels",
                                                       "ChannelBridgeSocket", "ChannelBridgeMessenger", "ChannelBridgeClient",
                                                       "ChannelBridgeStore", "ChannelBridgeHost", "ChannelBridgePlatform",
                                                       "ChannelBridgeContracts", "ChannelBridgeTesting", "extension-host"],
                         swiftSettings: strict),
        // Writes to a store from a separate process (directly, or through a host's channel), for the
        // multi-process tests of the store and the host.
        .executableTarget(name: "channelbridge-store-peer",
                          dependencies: ["ChannelBridgeStore", "ChannelBridgeCodec", "ChannelBridgeClient",
                                         "ChannelBridgeSocket", "ChannelBridgeTestSupport"],
                          path: "Tests/Support/channelbridge-store-peer", swiftSettings: strict),
        // A small peer process for tests that need the other side in a separate process.
        .executableTarget(name: "channelbridge-test-peer",
                          dependencies: ["ChannelBridgeBytes", "ChannelBridgeChannels", "ChannelBridgeSocket", "ChannelBridgeCodec",
                                         "ChannelBridgePlatform", "ChannelBridgeTestSupport"],
                          path: "Tests/Support/channelbridge-test-peer", swiftSettings: strict),

        // Helpers shared by the test targets (running built products as child processes, …).
        .target(name: "ChannelBridgeTestSupport", dependencies: ["ChannelBridgeBytes", "ChannelBridgeMessenger", "ChannelBridgePlatform"], path: "Tests/Support/ChannelBridgeTestSupport",
                swiftSettings: strict),
        // Examples: small programs built with the package and run by ExamplesTests.
        .executableTarget(name: "containing-app-example", dependencies: ["ChannelBridge", "Flutter"],
                          path: "Examples/ContainingApp", swiftSettings: strict),
        .executableTarget(name: "event-stream-example", dependencies: ["ChannelBridge"],
                          path: "Examples/EventStream", swiftSettings: strict),
        .target(name: "GreeterPlugin", dependencies: ["ChannelBridge"],
                path: "Examples/GreeterPlugin", swiftSettings: strict),
        .executableTarget(name: "custom-plugin-example", dependencies: ["GreeterPlugin", "ChannelBridge"],
                          path: "Examples/CustomPlugin", swiftSettings: strict),
        .executableTarget(name: "greeter-host-example",
                          dependencies: ["GreeterPlugin", "ChannelBridgeHost", "ChannelBridge"],
                          path: "Examples/GreeterHost", swiftSettings: strict),
        .testTarget(name: "GreeterPluginTests",
                    dependencies: ["GreeterPlugin", "ChannelBridge", "ChannelBridgeTesting"],
                    path: "Examples/GreeterPluginTests", swiftSettings: strict),
        .testTarget(name: "ExamplesTests",
                    dependencies: ["ChannelBridgeTestSupport", "containing-app-example", "event-stream-example",
                                   "custom-plugin-example", "greeter-host-example", "flutter-style-plugin-example", "pigeon-api-example",
                                   "pigeon-host-example", "channelbridge"],
                    swiftSettings: strict),

        .testTarget(name: "ChannelBridgeClientTests",
                    dependencies: ["ChannelBridgeClient", "ChannelBridgeChannels", "ChannelBridgeCodec", "ChannelBridgeMessenger",
                                   "ChannelBridgeSocket", "ChannelBridgeTestSupport", "extension-host"], swiftSettings: strict),
        // `channelbridge stress` (and `stress connect`) run as a real process against real hosts: the stock one,
        // one whose plugin traps, Pigeon's.
        .testTarget(name: "StressTests",
                    dependencies: ["ChannelBridgeTestSupport", "channelbridge", "extension-host", "isolation-test-host",
                                   "pigeon-host-example"],
                    swiftSettings: strict),
        // The CLI's commands run as child processes (codec, conformance, prefs, session, …): the only
        // test targets below that build the executables are this one and those about processes.
        .testTarget(name: "ChannelBridgeCLITests",
                    dependencies: ["ChannelBridgeTestSupport", "ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgeSocket",
                                   "channelbridge", "extension-host", "channelbridge-test-peer"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeBytesTests",
                    dependencies: ["ChannelBridgeBytes", "ChannelBridgeTestSupport", "channelbridge-test-peer"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeCodecTests",
                    dependencies: ["ChannelBridgeBytes", "ChannelBridgeCodec", "ChannelBridgeConformance", "ChannelBridgeTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeConformanceTests",
                    dependencies: ["ChannelBridgeCodec", "ChannelBridgeConformance", "ChannelBridgeTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeMessengerTests",
                    dependencies: ["ChannelBridgeBytes", "ChannelBridgeMessenger", "ChannelBridgeTesting", "ChannelBridgeTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgePlatformTests",
                    dependencies: ["ChannelBridgePlatform", "ChannelBridgeTestSupport"], swiftSettings: strict),
        .testTarget(name: "ChannelBridgeSocketTests",
                    dependencies: ["ChannelBridgeBytes", "ChannelBridgeSocket", "ChannelBridgeMessenger", "ChannelBridgeChannels",
                                   "ChannelBridgeCodec", "ChannelBridgePlugins", "channelbridge-test-peer",
                                   "ChannelBridgeTestSupport", "ChannelBridgePlatform"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeStoreTests",
                    dependencies: ["ChannelBridgeStore", "ChannelBridgeCodec", "channelbridge-store-peer",
                                   "ChannelBridgeTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgePluginsTests",
                    dependencies: ["ChannelBridgePlugins", "ChannelBridgeTesting", "ChannelBridgeChannels", "ChannelBridgeCodec",
                                   "ChannelBridgeTestSupport", "ChannelBridgePlatform"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeSharedPreferencesTests",
                    dependencies: ["ChannelBridgeSharedPreferences", "ChannelBridgePlugins", "ChannelBridgeTesting",
                                   "ChannelBridgeMessenger",
                                   "ChannelBridgeChannels", "ChannelBridgeStore", "ChannelBridgeCodec",
                                   "ChannelBridgeTestSupport", "ChannelBridgePlatform"], swiftSettings: strict),
        .testTarget(name: "ChannelBridgeHostTests",
                    dependencies: ["ChannelBridgeBytes", "ChannelBridgeHost", "ChannelBridgeSocket", "ChannelBridgeChannels", "ChannelBridgeStore",
                                   "ChannelBridgeMessenger", "ChannelBridgeClient",
                                   "ChannelBridgeCodec", "ChannelBridgeTestSupport", "extension-host",
                                   "channelbridge-store-peer", "isolation-test-host", "pigeon-host-example",
                                   "ChannelBridgePlatform"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeContractsTests",
                    dependencies: ["ChannelBridgeContracts", "ChannelBridgeCodec", "ChannelBridgeTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ChannelBridgeTestingTests",
                    dependencies: ["ChannelBridgeTesting", "ChannelBridgeContracts", "ChannelBridgeChannels", "ChannelBridgeCodec", "ChannelBridgeMessenger",
                                   "ChannelBridgePlugins", "ChannelBridgeSharedPreferences", "ChannelBridgeStore",
                                   "ChannelBridgeTestSupport", "ChannelBridgePlatform"],
                    swiftSettings: strict),
        // `import Flutter`: Flutter's iOS embedder API (channels, codecs, plugins, FlutterEngine) over a
        // ChannelBridge session, for plugin code and Pigeon output written for iOS. The only module that
        // links full Foundation; the stock extension-host does not link it.
        .target(name: "Flutter",
                dependencies: ["ChannelBridgeBytes", "ChannelBridgePlugins", "ChannelBridgeChannels", "ChannelBridgeCodec", "ChannelBridgeMessenger",
                               "ChannelBridgePlatform", "ChannelBridgeStore"],
                swiftSettings: strict),
        .executableTarget(name: "flutter-style-plugin-example",
                          dependencies: ["Flutter", "ChannelBridgeHost", "ChannelBridge"],
                          path: "Examples/FlutterStylePlugin", swiftSettings: strict),
        // Pigeon 28.0.0's Swift output, in the Swift 5 language mode as Pigeon's own test plugin builds it.
        .executableTarget(name: "pigeon-api-example",
                          dependencies: ["Flutter", "ChannelBridgeSocket", "ChannelBridgeChannels", "ChannelBridgeCodec",
                                         "ChannelBridgeMessenger", "ChannelBridgePlatform"],
                          path: "Examples/PigeonAPI/Sources", swiftSettings: [.swiftLanguageMode(.v5)]),
        // The same Pigeon API served by an extension host (isolated sessions by default): the
        // generated file and the implementation are Examples/PigeonAPI/Sources', linked.
        .executableTarget(name: "pigeon-host-example",
                          dependencies: ["Flutter", "ChannelBridgeHost"],
                          path: "Examples/PigeonAPI/Host", swiftSettings: [.swiftLanguageMode(.v5)]),
        // iOS-style channels in a process whose main thread runs the main run loop, for the
        // threading tests (main thread, timers, DispatchQueue.main, the main actor).
        .executableTarget(name: "flutter-threading-peer",
                          dependencies: ["Flutter", "ChannelBridgeSocket", "ChannelBridgeMessenger"],
                          path: "Tests/Support/flutter-threading-peer", swiftSettings: strict),
        // A host with a plugin that traps on request, for the session isolation tests.
        .executableTarget(name: "isolation-test-host",
                          dependencies: ["Flutter", "ChannelBridgeHost", "ChannelBridgePlugins"],
                          path: "Tests/Support/isolation-test-host", swiftSettings: strict),
        .testTarget(name: "FlutterTests",
                    dependencies: ["Flutter", "ChannelBridgeCodec", "ChannelBridgeConformance", "ChannelBridgeChannels",
                                   "ChannelBridgeMessenger", "ChannelBridgePlugins", "ChannelBridgeTesting", "ChannelBridgeSocket",
                                   "ChannelBridgeTestSupport", "pigeon-api-example", "flutter-threading-peer",
                                   "ChannelBridgePlatform", "ChannelBridgeStore"],
                    swiftSettings: strict),

        // The repository's checking scripts, run as CI runs them: the public-API baseline, unused dependencies.
        .testTarget(name: "ScriptsTests", dependencies: ["ChannelBridgeTestSupport"], swiftSettings: strict),

        .testTarget(name: "ChannelBridgeChannelsTests",
                    dependencies: ["ChannelBridgeChannels", "ChannelBridgeTesting", "ChannelBridgeCodec", "ChannelBridgeTestSupport",
                                   "ChannelBridgePlatform"],
                    swiftSettings: strict),
    ]
)

// Fuzz targets (Docs/fuzzing.md): declared only when `Scripts/fuzz` builds them with
// CHANNELBRIDGE_FUZZ=1 and `--sanitize=fuzzer --sanitize=address`, so the normal build and test
// never compile them. One executable holds every target; `--target=NAME` picks one.
if Context.environment["CHANNELBRIDGE_FUZZ"] != nil {
    package.targets += [
        .target(name: "ChannelBridgeFuzzTargets",
                dependencies: ["ChannelBridgeBytes", "ChannelBridgeCodec", "ChannelBridgeMessenger", "ChannelBridgeStore",
                               "ChannelBridgeHost", "ChannelBridgeConformance"],
                path: "Fuzz/ChannelBridgeFuzzTargets", swiftSettings: strict),
        .executableTarget(name: "channelbridge-fuzz", dependencies: ["ChannelBridgeFuzzTargets"],
                          path: "Fuzz/channelbridge-fuzz", swiftSettings: strict),
    ]
}
