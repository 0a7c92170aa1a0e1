import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Examples/OutsidePackage`, a user's own package that depends on this one by path (`.ci/run`
/// builds it): its `main.swift` files are the README's hosting blocks, byte for byte, so what the
/// README shows is what compiles outside the package.
@Suite struct OutsidePackageTests {
    static func readmeSwiftBlocks() throws -> [String] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        return readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```\n")[0] }
    }

    @Test(arguments: ["flutter-host", "greeter-host"])
    func theMainFileIsABlockOfTheReadme(_ target: String) throws {
        let path = "Examples/OutsidePackage/Sources/\(target)/main.swift"
        let main = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        #expect(try Self.readmeSwiftBlocks().contains(main), "README.md has no ```swift block equal to \(path)")
    }

    /// What in `files` (a path and its text) reaches ChannelBridge other than through `products`:
    /// one line per import of a ChannelBridge module (or `Flutter`) that is not one of them.
    static func importsOutsideProducts(_ files: [(path: String, text: String)], products: Set<String>) -> [String] {
        files.flatMap { file in
            ProductImportsTests.channelBridgeImports(inText: file.text).filter { !products.contains($0) }
                .map { "\(file.path) imports \($0), which is no library product" }
        }
    }

    static func outsidePackageSources() throws -> [(path: String, text: String)] {
        let sources = packageRoot.appendingPathComponent("Examples/OutsidePackage/Sources")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
            .sorted()
        return try paths.map { ($0, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The package reaches ChannelBridge through the library products only (`ChannelBridge`,
    /// `ChannelBridgeHost`, `ChannelBridgeTesting`, `ChannelBridgeConformance`, `Flutter`), as a
    /// user's package does: each `main.swift` imports the umbrella, the host and, for Flutter-style
    /// plugins, `Flutter`; a plugin file imports nothing but `Flutter`.
    @Test func theOutsidePackageImportsProductsOnly() throws {
        let products = try ProductImportsTests.libraryProducts()
        #expect(
            products == [
                "ChannelBridge", "ChannelBridgeHost", "ChannelBridgeTesting", "ChannelBridgeConformance", "Flutter",
            ])
        let files = try Self.outsidePackageSources()
        #expect(
            files.map(\.path) == [
                "flutter-host/BatteryPlugin.swift", "flutter-host/GeneratedPluginRegistrant.swift",
                "flutter-host/main.swift", "greeter-host/main.swift",
            ])
        #expect(Self.importsOutsideProducts(files, products: products) == [])
        let imports = Dictionary(
            uniqueKeysWithValues: files.map { ($0.path, ProductImportsTests.channelBridgeImports(inText: $0.text)) })
        #expect(imports["flutter-host/main.swift"] == ["ChannelBridge", "ChannelBridgeHost", "Flutter"])
        #expect(imports["greeter-host/main.swift"] == ["ChannelBridge", "ChannelBridgeHost"])
        #expect(imports["flutter-host/BatteryPlugin.swift"] == ["Flutter"])
        #expect(imports["flutter-host/GeneratedPluginRegistrant.swift"] == ["Flutter"])
    }

    /// The check above fails on a per-layer module, however it is imported.
    @Test func anImportOfAModuleUnderTheProductsFailsTheCheck() throws {
        let products = try ProductImportsTests.libraryProducts()
        let main = try #require(try Self.outsidePackageSources().first { $0.path == "greeter-host/main.swift" })
        let layered = main.text.replacingOccurrences(
            of: "import ChannelBridge\n", with: "import ChannelBridgeChannels\n")
        #expect(layered != main.text)
        let files = [
            (path: "greeter-host/main.swift", text: layered),
            (
                path: "Other.swift",
                text: """
                @preconcurrency public import struct ChannelBridgePlugins.PluginCatalogue
                @testable import ChannelBridgePlatform
                import Foundation
                // import ChannelBridgeCodec
                import ChannelBridgeTesting

                """
            ),
        ]
        #expect(
            Self.importsOutsideProducts(files, products: products) == [
                "greeter-host/main.swift imports ChannelBridgeChannels, which is no library product",
                "Other.swift imports ChannelBridgePlugins, which is no library product",
                "Other.swift imports ChannelBridgePlatform, which is no library product",
            ])
    }
}
