import ChannelBridgePlatform

/// The app group a `SharedPreferencesClient` chose, shared by its copies.
final class GroupBox: Sendable {
    private let chosen = LockedValue<String?>(nil)
    var value: String? { chosen.withLock { $0 } }
    func set(_ group: String) { chosen.withLock { $0 = group } }
}
