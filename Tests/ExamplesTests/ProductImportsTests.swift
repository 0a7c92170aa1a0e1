import ChannelBridgeTestSupport
import Foundation
import Testing

/// The examples are written as a user of the package writes: with `import ChannelBridge` and the
/// other library products, not the per-layer modules under it, so that a plugin needs one
/// ChannelBridge import and its tests two.
@Suite struct ProductImportsTests {
    /// The library products Package.swift declares, by name.
    static func libraryProducts() throws -> Set<String> {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = manifest.components(separatedBy: "\n    products: [")[1].components(separatedBy: "\n    ],")[0]
        return Set(products.components(separatedBy: ".library(name: \"").dropFirst().map { $0.components(separatedBy: "\"")[0] })
    }

    /// The ChannelBridge modules (and `Flutter`) a Swift file imports, whatever the import's access.
    static func channelBridgeImports(of path: String) throws -> [String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                  words[..<index].allSatisfy({ ["public", "package", "internal", "@_exported"].contains($0) }) else { return nil }
            let module = String(words[index + 1])
            return module.hasPrefix("ChannelBridge") || module == "Flutter" ? module : nil
        }
    }

    @Test func theLibraryProductsAreTheUmbrellaHostTestingConformanceAndFlutter() throws {
        #expect(try Self.libraryProducts() == ["ChannelBridge", "ChannelBridgeHost", "ChannelBridgeTesting",
                                               "ChannelBridgeConformance", "Flutter"])
    }

    @Test func aPluginImportsOneChannelBridgeModuleAndItsTestsTwo() throws {
        #expect(try Self.channelBridgeImports(of: "Examples/GreeterPlugin/GreeterPlugin.swift") == ["ChannelBridge"])
        for test in ["GreeterPluginTests.swift", "GreeterPluginRecordingTests.swift"] {
            #expect(try Self.channelBridgeImports(of: "Examples/GreeterPluginTests/\(test)") == ["ChannelBridge", "ChannelBridgeTesting"])
        }
    }

    /// Every example but two imports products only. `Examples/PigeonAPI` sets its process's signal
    /// policy with `ChannelBridgePlatform`, as the package's own executables do; the
    /// `main.swift` files of `Examples/OutsidePackage` are README blocks, byte for byte, and follow
    /// the README's imports.
    @Test func theExamplesImportLibraryProductsOnly() throws {
        let products = try Self.libraryProducts()
        let examples = packageRoot.appendingPathComponent("Examples")
        let files = try FileManager.default.subpathsOfDirectory(atPath: examples.path)
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("PigeonAPI/") && !$0.hasPrefix("OutsidePackage/") }
            .sorted()
        #expect(files.count == 11, "\(files)")
        for file in files {
            let outside = try Self.channelBridgeImports(of: "Examples/" + file).filter { !products.contains($0) }
            #expect(outside.isEmpty, "Examples/\(file) imports \(outside), which no library product holds")
        }
    }
}
