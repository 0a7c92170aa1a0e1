import ChannelBridgePlatform
import FoundationEssentials

/// The `CFBundleIdentifier` of the `Info.plist` beside the executable: where Linux Foundation
/// reads `Bundle.main.bundleIdentifier` from, as an iOS app's comes from its bundle's Info.plist.
/// Only that key is decoded; a file that is missing, larger than 1 MiB, not a property list or
/// without a usable identifier counts as no file.
package struct MainBundleInfo: Equatable {
    package var path: String
    package var identifier: String

    package init(path: String, identifier: String) {
        self.path = path
        self.identifier = identifier
    }

    private struct Lookup: Decodable {
        var identifier: String?

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let root = try? decoder.container(keyedBy: Key.self)
            identifier = try? root?.decode(String.self, forKey: Key("CFBundleIdentifier"))
        }
    }

    static let largestFile = 1 << 20

    package static func besideExecutable(_ executable: String = OwnExecutable.path()) -> MainBundleInfo? {
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let path = String(executable[..<slash]) + "/Info.plist"
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
            size <= largestFile, let data = try? Data(contentsOf: URL(fileURLWithPath: path)),
            let lookup = try? PropertyListDecoder().decode(Lookup.self, from: data),
            let identifier = lookup.identifier, !identifier.isEmpty
        else { return nil }
        return MainBundleInfo(path: path, identifier: identifier)
    }
}
