import ChannelBridgeStore
import Foundation

extension FileManager {
    /// The shared container of an app group the host is entitled to (created if missing), as
    /// iOS answers it; `nil` for any other group, or in a process without an app sandbox. It is
    /// the directory the extension channel's `getAppGroupContainer` names, and where `--file`
    /// input items are copied: `<data directory>/app-groups/<group>/container`.
    ///
    /// ```swift
    /// let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.app")!
    /// let imported = container.appendingPathComponent("image.png")
    /// ```
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        guard let sandbox = AppSandbox.current else { return nil }
        do {
            guard let path = try sandbox.containerDirectory(forGroup: groupIdentifier) else { return nil }
            return URL(fileURLWithPath: path, isDirectory: true)
        } catch {
            FlutterLog.error(
                "containerURL(forSecurityApplicationGroupIdentifier: \(groupIdentifier)): \(error.message)")
            return nil
        }
    }
}
