import ChannelBridgeStore
import Foundation

/// Foundation's `NSSearchPathForDirectoriesInDomains`, as plugin code calls it (`path_provider`
/// does), except that in a process with an app sandbox the user domain's library directory is the
/// app's own `Library` under the host's data directory, as iOS answers it: Linux Foundation
/// answers `.libraryDirectory` with no path at all. Every other directory is Foundation's answer,
/// which the host has already pointed at the sandbox (Protocol/flutter-embedder.md §8). A file
/// that imports `Flutter` and not `Foundation` gets this one.
///
/// ```swift
/// let library = NSSearchPathForDirectoriesInDomains(.libraryDirectory, .userDomainMask, true).first
/// ```
public func NSSearchPathForDirectoriesInDomains(
    _ directory: FileManager.SearchPathDirectory, _ domainMask: FileManager.SearchPathDomainMask,
    _ expandTilde: Bool
) -> [String] {
    let answer = Foundation.NSSearchPathForDirectoriesInDomains(directory, domainMask, expandTilde)
    guard directory == .libraryDirectory, domainMask.contains(.userDomainMask), let sandbox = AppSandbox.current
    else { return answer }
    return [sandbox.libraryDirectory] + answer
}
