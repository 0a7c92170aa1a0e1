import Foundation

/// A fresh directory under /tmp with a short name, because a Unix socket path has at most 107
/// bytes. Removed by `remove()`.
public struct TestDirectory: Sendable {
    public let path: String

    public init() throws {
        let name = "cbh-" + String(UUID().uuidString.prefix(8)).lowercased()
        path = "/tmp/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    public var socket: String { path + "/h.sock" }
    public var data: String { path + "/data" }

    public func group(_ name: String) -> String { data + "/app-groups/" + name }
    public func container(_ name: String) -> String { group(name) + "/container" }
    public func preferencesFile(_ name: String) -> String { group(name) + "/preferences.json" }

    /// Writes `text` to a file in this directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
