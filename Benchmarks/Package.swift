// swift-tools-version:6.2
import PackageDescription

/// The root package's settings: the Swift 6 language mode, `any` on every existential, members
/// visible only from modules a file imports, internal imports by default.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// ChannelBridge's benchmarks, a package of their own so that building or testing ChannelBridge
// never builds them: they are built on its products as a user's package is, with `.package(path: "..")`.
// What a user's code cannot reach and a measured path takes (a client's calls on the connection's
// reader thread, in one call scope) is the root's `@_spi(Benchmarks)` API; README.md lists it.
//
//   swift run -c release --package-path Benchmarks channelbridge-bench [scenario ...] [--json]
//   swift test --package-path Benchmarks
let package = Package(
    name: "ChannelBridgeBenchmarks",
    dependencies: [
        .package(name: "ChannelBridge", path: "..")
    ],
    targets: [
        // The suite: scenarios, their baselines, the report, and the processes they start. Its
        // machinery (clock, pipes, CPU pinning, child processes) is its own, Glibc in Internal/.
        .target(
            name: "ChannelBridgeBench",
            dependencies: [.product(name: "ChannelBridge", package: "ChannelBridge")],
            resources: [.copy("Resources/representative-payload.tvn.json")], swiftSettings: strict),
        // `channelbridge-bench`: the suite's command line, and `serve`, the other process of the socket
        // scenarios. Depends on the executables the scenarios start (the C baselines; the root's
        // `extension-host` and `channelbridge`, whose `record` the `record` scenario measures) so that
        // SwiftPM builds them beside it: built, not linked.
        .executableTarget(
            name: "channelbridge-bench",
            dependencies: [
                "ChannelBridgeBench", "channelbridge-raw-bench",
                .product(name: "extension-host", package: "ChannelBridge"),
                .product(name: "channelbridge", package: "ChannelBridge"),
            ],
            swiftSettings: strict),
        // Raw C baselines: socket ping-pong, pipelining, bulk, streams, a C Standard codec, a durable write.
        .executableTarget(name: "channelbridge-raw-bench"),
        // The rtt scenario's two processes (and a prefs get the extension host answers) with a synchronous
        // `main`, as valgrind runs them: `Scripts/count-instructions` counts instructions per call with it.
        .executableTarget(
            name: "channelbridge-rtt-driver",
            dependencies: [
                "ChannelBridgeBench",
                .product(name: "ChannelBridge", package: "ChannelBridge"),
                .product(name: "ChannelBridgeHost", package: "ChannelBridge"),
            ],
            swiftSettings: strict),
        // Every scenario at a tiny size, the C codec's checks, the driver's calls: real processes.
        .testTarget(
            name: "BenchTests",
            dependencies: ["channelbridge-bench", "channelbridge-raw-bench", "channelbridge-rtt-driver"],
            swiftSettings: strict),
    ]
)
