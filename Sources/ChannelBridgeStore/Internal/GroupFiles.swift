/// The files of one app group (normative layout, see Protocol/store.md) and the two ways to use
/// them: a lock-free read, and a read-modify-write under the group's `flock`.
struct GroupFiles: Sendable {
    let directory: String

    var preferences: String { directory + "/preferences.json" }
    var lock: String { directory + "/.lock" }
    var temporary: String { directory + "/.preferences.json.tmp" }
    var container: String { directory + "/container" }

    /// What a change produced: the keys it wrote (none: nothing is written) and the caller's result.
    struct Outcome<T> {
        var writtenKeys: [String]
        var result: T
    }

    /// The current document; an absent file is an empty group. Takes no lock.
    func read() throws(StoreError) -> PreferencesDocument {
        guard let bytes = try FileSystem.readFile(at: preferences, what: "preferences file") else {
            return .empty
        }
        return try PreferencesDocument(decoding: bytes, path: preferences)
    }

    /// Runs `change` on the current values while holding the group's lock, then, if it wrote any
    /// key, records the write in the change log and replaces the file durably before unlocking.
    /// A file that cannot be read stops here: it is reported, never overwritten.
    func modify<T>(_ change: (inout OrderedValues) -> Outcome<T>) throws(StoreError) -> T {
        try FileSystem.makeDirectories(directory)
        let lockDescriptor = try FileSystem.lockExclusively(lock)
        defer { FileSystem.unlock(lockDescriptor) }
        var document = try read()
        let outcome = change(&document.values)
        if outcome.writtenKeys.isEmpty { return outcome.result }
        document.recordWrite(of: outcome.writtenKeys)
        try FileSystem.replaceDurably(preferences, with: document.encoded(), temporaryPath: temporary,
                                      directory: directory)
        return outcome.result
    }
}
