/// The handlers of a connection by channel name, with the last lookup remembered.
///
/// A request's channel name comes from `ChannelNameCache`, which hands out the same `String` for
/// the same bytes, so while traffic stays on one channel the remembered entry answers with a
/// comparison of two strings that share storage, which is cheap, instead of hashing the name for
/// every request. Any change to the table forgets the memo.
struct HandlerTable {
    private var byName: [String: ConnectionState.InstalledHandler] = [:]
    /// The last name looked up (`""` for none: channel names are never empty) and what the table
    /// had for it (`nil`: no handler). Two plain properties rather than an optional tuple, which
    /// `if let` copies whole, retaining and releasing the name and the handler on every
    /// request.
    private var recentName = ""
    private var recentInstalled: ConnectionState.InstalledHandler?

    /// The handler installed on `channel`, if any.
    mutating func lookup(_ channel: String) -> ConnectionState.InstalledHandler? {
        if recentName == channel { return recentInstalled }
        let installed = byName[channel]
        recentName = channel
        recentInstalled = installed
        return installed
    }

    /// The id of the handler installed on `channel`, without touching the memo.
    func id(on channel: String) -> UInt64? {
        byName[channel]?.id
    }

    /// Installs `installed` on `channel` (removes its handler, for `nil`).
    mutating func set(_ installed: ConnectionState.InstalledHandler?, on channel: String) {
        byName[channel] = installed
        forgetRecent()
    }

    mutating func removeAll() {
        byName = [:]
        forgetRecent()
    }

    private mutating func forgetRecent() {
        recentName = ""
        recentInstalled = nil
    }
}
