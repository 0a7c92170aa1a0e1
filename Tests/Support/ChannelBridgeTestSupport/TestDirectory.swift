import Foundation
import Glibc

/// A fresh directory under /tmp, made by `mkdtemp` (so mode 0700), with a short name because a
/// Unix socket path has at most 107 bytes. Removed by `remove()`.
///
/// ```swift
/// let directory = try TestDirectory()
/// defer { directory.remove() }
/// let host = try HostProcess(["--socket", directory.socket, "--data-dir", directory.data])
/// ```
public struct TestDirectory: Sendable {
    public struct CreationFailed: Error, CustomStringConvertible {
        public var description: String
    }

    public let path: String

    public init() throws {
        var template = Array("/tmp/cbh-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw CreationFailed(description: "mkdtemp /tmp/cbh-XXXXXX: errno \(errno)") }
        path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `body` with the path of a fresh test directory, removing the directory afterwards.
    public static func withPath<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = try TestDirectory()
        defer { directory.remove() }
        return try await body(directory.path)
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
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Removes the directory and everything in it. A child process may still be removing its own
    /// files (a socket, at its exit) while this walks the tree, and Foundation gives up at the
    /// first entry that vanished under it; so the walk is tried again, a few times.
    public func remove() {
        for _ in 0..<5 {
            do {
                try FileManager.default.removeItem(atPath: path)
                return
            } catch {
                if !FileManager.default.fileExists(atPath: path) { return }
            }
        }
    }
}
