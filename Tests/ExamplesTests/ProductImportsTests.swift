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
        return Set(
            products.components(separatedBy: ".library(name: \"").dropFirst().map {
                $0.components(separatedBy: "\"")[0]
            })
    }

    /// The ChannelBridge modules (and `Flutter`) a Swift file imports.
    static func channelBridgeImports(of path: String) throws -> [String] {
        channelBridgeImports(inText: try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8))
    }

    /// The ChannelBridge modules (and `Flutter`) a Swift text imports, whatever the import's
    /// attributes, access or kind: `@preconcurrency public import struct ChannelBridgeCodec.StandardValue`
    /// imports `ChannelBridgeCodec`.
    static func channelBridgeImports(inText text: String) -> [String] {
        let access: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
        return text.split(separator: "\n").compactMap { line -> String? in
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
            while let word = words.first, word.hasPrefix("@") || access.contains(word) { words = words.dropFirst() }
            guard words.first == "import" else { return nil }
            words = words.dropFirst()
            if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
            guard let path = words.first, let module = path.split(separator: ".").first.map(String.init) else {
                return nil
            }
            return module.hasPrefix("ChannelBridge") || module == "Flutter" ? module : nil
        }
    }

    @Test func theLibraryProductsAreTheUmbrellaHostTestingConformanceAndFlutter() throws {
        #expect(
            try Self.libraryProducts() == [
                "ChannelBridge", "ChannelBridgeHost", "ChannelBridgeTesting",
                "ChannelBridgeConformance", "Flutter",
            ])
    }

    @Test func aPluginImportsOneChannelBridgeModuleAndItsTestsTwo() throws {
        #expect(try Self.channelBridgeImports(of: "Examples/GreeterPlugin/GreeterPlugin.swift") == ["ChannelBridge"])
        for test in ["GreeterPluginTests.swift", "GreeterPluginRecordingTests.swift"] {
            #expect(
                try Self.channelBridgeImports(of: "Examples/GreeterPluginTests/\(test)") == [
                    "ChannelBridge", "ChannelBridgeTesting",
                ])
        }
    }

    /// Every example in this package but one imports products only: `Examples/PigeonAPI` sets its
    /// process's signal policy with `ChannelBridgePlatform`, as the package's own executables do.
    /// `Examples/OutsidePackage`, a package of its own, is checked by `OutsidePackageTests`.
    @Test func theExamplesImportLibraryProductsOnly() throws {
        let products = try Self.libraryProducts()
        let examples = packageRoot.appendingPathComponent("Examples")
        let files = try FileManager.default.subpathsOfDirectory(atPath: examples.path)
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("PigeonAPI/") && !$0.hasPrefix("OutsidePackage/") }
            .sorted()
        #expect(files.count == 12, "\(files)")
        for file in files {
            let outside = try Self.channelBridgeImports(of: "Examples/" + file).filter { !products.contains($0) }
            #expect(outside.isEmpty, "Examples/\(file) imports \(outside), which no library product holds")
        }
    }
}
