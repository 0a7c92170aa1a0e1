import ChannelBridgeTestSupport
import Foundation
import Testing

/// Every lock in `Sources/` is a `LockedValue`, the lock ThreadSanitizer sees in a sanitized build
/// (Docs/sanitizers.md): a `Mutex` or `NSLock` used directly would make every access under it a
/// reported race there, or hide a real one. Comment lines (doc examples) do not count.
@Suite struct LockRuleTests {
    @Test func noLockButLockedValueInSources() throws {
        let sources = packageRoot.appendingPathComponent("Sources").path
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }
        var found: [String] = []
        for file in files where file.hasSuffix(".swift") && !file.hasSuffix("/LockedValue.swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.drop { $0 == " " }
                if code.hasPrefix("//") { continue }
                if code.contains("Mutex(") || code.contains("Mutex<") || code.contains("NSLock(") {
                    found.append("\(file):\(number + 1)")
                }
            }
        }
        #expect(found == [], "use LockedValue")
    }
}
