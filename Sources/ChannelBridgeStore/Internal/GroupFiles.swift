/// The files of one app group (normative layout, see Protocol/store.md).
struct GroupFiles: Sendable {
    let directory: String

    var preferences: String { directory + "/preferences.json" }
    var lock: String { directory + "/.lock" }
    var temporary: String { directory + "/.preferences.json.tmp" }
    var container: String { directory + "/container" }
}
