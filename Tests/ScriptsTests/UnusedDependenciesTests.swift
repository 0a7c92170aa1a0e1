import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Scripts/unused-dependencies`, which `.ci/run` runs after the build, on a package of its own:
/// a dependency its target never imports fails the run by name; one on an executable, there for
/// the build order, does not.
@Suite struct UnusedDependenciesTests {
    static let script = packageRoot.appendingPathComponent("Scripts/unused-dependencies").path

    @Test func aDependencyTheTargetNeverImportsIsNamedAndFailsTheRun() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try directory.write(
            "Package.swift",
            """
            // swift-tools-version:6.2
            import PackageDescription

            let package = Package(name: "Probe", targets: [
                .target(name: "Leaf"),
                .target(name: "Other"),
                .executableTarget(name: "tool"),
                .target(name: "Top", dependencies: ["Leaf", "Other", "tool"]),
            ])

            """)
        try directory.write("Sources/Leaf/Leaf.swift", "public let leaf = 1\n")
        try directory.write("Sources/Other/Other.swift", "public let other = 2\n")
        try directory.write("Sources/tool/main.swift", "print(3)\n")
        try directory.write("Sources/Top/Top.swift", "public import Leaf\n// import Other, in a comment\n")

        let unused = try await ProcessRunner.runOnThread(Self.script, [directory.path])
        #expect(
            unused.stdout == """
                unused-dependencies: Top depends on Other and imports it nowhere
                unused-dependencies: remove them from Package.swift (or import them where they are needed)

                """)
        #expect(unused.status == 1)

        try directory.write("Sources/Top/Top.swift", "public import Leaf\n@_implementationOnly import Other\n")
        let used = try await ProcessRunner.runOnThread(Self.script, [directory.path])
        #expect(used.stdout == "unused-dependencies: each of 4 targets imports every dependency it declares\n")
        #expect(used.status == 0)
    }

    /// A package on the file system (Benchmarks/ on the root): a dependency on one of its executable
    /// products orders the build and is left alone; one on a library product it never imports is named.
    @Test func anExecutableProductOfALocalPackageIsLeftAloneAndAnUnusedLibraryIsNamed() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try directory.write(
            "Provider/Package.swift",
            """
            // swift-tools-version:6.2
            import PackageDescription

            let package = Package(
                name: "Provider",
                products: [.library(name: "Leaf", targets: ["Leaf"]), .executable(name: "tool", targets: ["tool"])],
                targets: [.target(name: "Leaf"), .executableTarget(name: "tool")])

            """)
        try directory.write("Provider/Sources/Leaf/Leaf.swift", "public let leaf = 1\n")
        try directory.write("Provider/Sources/tool/main.swift", "print(3)\n")
        try directory.write(
            "Consumer/Package.swift",
            """
            // swift-tools-version:6.2
            import PackageDescription

            let package = Package(
                name: "Consumer", dependencies: [.package(name: "Provider", path: "../Provider")],
                targets: [
                    .target(name: "Top", dependencies: [
                        .product(name: "Leaf", package: "Provider"), .product(name: "tool", package: "Provider"),
                    ])
                ])

            """)
        try directory.write("Consumer/Sources/Top/Top.swift", "public let top = 1\n")

        let unused = try await ProcessRunner.runOnThread(Self.script, [directory.path + "/Consumer"])
        #expect(
            unused.stdout == """
                unused-dependencies: Top depends on Leaf and imports it nowhere
                unused-dependencies: remove them from Package.swift (or import them where they are needed)

                """)
        #expect(unused.status == 1)
    }
}
