/// The files of one app group (normative layout, see Protocol/store.md). The paths are built once:
/// a cached read uses `preferences` on every call.
struct GroupFiles: Sendable {
    let directory: String
    let preferences: String
    let lock: String
    let temporary: String
    let container: String

    init(directory: String) {
        self.directory = directory
        preferences = directory + "/preferences.json"
        lock = directory + "/.lock"
        temporary = directory + "/.preferences.json.tmp"
        container = directory + "/container"
    }
}
