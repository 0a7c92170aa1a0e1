public import Foundation

/// Where this checkout lives, found from this file's place in it (Tests/Support/ChannelBridgeTestSupport/).
public let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `../shared/` beside the checkout, when it is there (CI and developers have it; a bare clone may not).
public let sharedDirectory: URL? = {
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
}()
