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

    /// The package reaches ChannelBridge through its products only: a plugin file imports nothing
    /// but `Flutter`, and no file imports a module that is not a product (`ChannelBridgePlatform`).
    @Test func theOutsidePackageImportsProductsOnly() throws {
        let sources = packageRoot.appendingPathComponent("Examples/OutsidePackage/Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files == ["flutter-host/BatteryPlugin.swift", "flutter-host/GeneratedPluginRegistrant.swift",
                          "flutter-host/main.swift", "greeter-host/main.swift"])
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") }
            if file.hasSuffix("Plugin.swift") || file.hasSuffix("Registrant.swift") {
                #expect(imports == ["import Flutter"], "\(file)")
            }
            #expect(!imports.contains("import ChannelBridgePlatform"), "\(file)")
        }
    }
}
