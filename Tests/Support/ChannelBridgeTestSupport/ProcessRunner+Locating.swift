import Foundation

extension ProcessRunner {
    /// A built product the test needs was not found.
    public struct ProductNotFound: Error, CustomStringConvertible {
        public var description: String
    }

    /// The path of the built product `product`: `$variable` when that is set, else the first
    /// executable of that name beside the running test binary or up to three directories above it
    /// (SwiftPM puts every product of a build in one directory; inside an .xctest bundle the binary
    /// sits deeper).
    ///
    /// ```swift
    /// let peer = try ProcessRunner.locate("channelbridge-test-peer", overriddenBy: "CHANNELBRIDGE_TEST_PEER")
    /// ```
    public static func locate(_ product: String, overriddenBy variable: String? = nil) throws -> String {
        if let variable, let path = ProcessInfo.processInfo.environment[variable] { return path }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(exe)
        }
        if let exe = Bundle.main.executableURL?.path { candidates.append(exe) }
        candidates.append(CommandLine.arguments[0])
        for candidate in candidates {
            var directory = URL(fileURLWithPath: candidate).deletingLastPathComponent()
            for _ in 0..<4 {
                let path = directory.appendingPathComponent(product).path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw ProductNotFound(
            description: "\(product) not found near \(candidates); build it "
                + "(swift build --product \(product))" + (variable.map { " or set \($0)" } ?? ""))
    }
}
