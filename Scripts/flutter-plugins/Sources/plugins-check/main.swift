import ChannelBridge
import Foundation

// plugins-check first|second SOCKET DATA_DIR APP_GROUP BUNDLE_IDENTIFIER
//
// Drives shared_preferences_foundation's and path_provider_foundation's Pigeon channels on a host
// as their Dart halves do, and checks every reply against what those expect, as an iOS app's
// plugins answer it: `first` on a fresh data directory, `second` after the host restarted and
// `channelbridge prefs set` wrote `fromCLI` and `fromCLIInt` to the app group. Prints one line
// per reply and "N of M replies as expected"; exit status 0 when all are, 1 otherwise, 64 usage.

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 5, let phase = arguments.first, ["first", "second"].contains(phase) else {
    FileHandle.standardError.write(
        Data("usage: plugins-check first|second SOCKET DATA_DIR APP_GROUP BUNDLE_IDENTIFIER\n".utf8))
    exit(64)
}
let (socket, dataDirectory, group, bundleIdentifier) = (
    arguments[arguments.startIndex + 1], arguments[arguments.startIndex + 2], arguments[arguments.startIndex + 3],
    arguments[arguments.startIndex + 4]
)
/// The app's sandbox, as iOS gives each app a container: `DATA_DIR/apps/BUNDLE_IDENTIFIER`.
let home = dataDirectory + "/apps/" + bundleIdentifier
let null: StandardValue = .null

/// A host method's success reply: `[result]`.
func result(_ value: StandardValue) -> StandardValue { .list([value]) }
/// A map reply's entries, string keys.
func map(_ entries: KeyValuePairs<String, StandardValue>) -> StandardValue {
    .map(entries.map { StandardValue.MapEntry(.string($0.key), $0.value) })
}
func strings(_ values: [String]) -> StandardValue { .list(values.map(StandardValue.string)) }

/// The first run, on a fresh data directory.
func first(_ checks: inout ReplyChecks) async throws {
    // path_provider: the app's own directories (temp is the caches directory: the plugin asks
    // Foundation for that), and the entitled group's container.
    let directories: [(DartSide.DirectoryType, String)] = [
        (.applicationDocuments, home + "/Documents"), (.applicationSupport, home + "/Library/Application Support"),
        (.downloads, home + "/Downloads"), (.library, home + "/Library"), (.temp, home + "/Library/Caches"),
        (.applicationCache, home + "/Library/Caches"),
    ]
    for (type, path) in directories {
        await checks.expect(try PathProviderApi.getDirectoryPath(type), result(.string(path)))
    }
    await checks.expect(
        PathProviderApi.getContainerPath(group), result(.string(dataDirectory + "/app-groups/\(group)/container")))
    await checks.expect(PathProviderApi.getContainerPath("group.not.entitled"), result(null))

    // SharedPreferencesAsync on the standard suite, then on the app group's.
    for suite in [nil, group] {
        await checks.expect(try UserDefaultsApi.getAll(suite: suite), result(map([:])))
        let values: KeyValuePairs<String, StandardValue> = [
            "check.string": .string(suite == nil ? "text" : "group text"), "check.int": .int64(42),
            "check.double": .float64(2.5), "check.whole": .float64(3), "check.bool": .bool(true),
            "check.list": strings(["a", "b"]),
        ]
        for (key, value) in values {
            await checks.expect(try UserDefaultsApi.set(key, value, suite: suite), result(null))
        }
        for (key, value) in values {
            await checks.expect(try UserDefaultsApi.getValue(key, suite: suite), result(value))
        }
        await checks.expect(try UserDefaultsApi.getValue("check.missing", suite: suite), result(null))
        await checks.expect(try UserDefaultsApi.getAll(suite: suite), result(map(values)))
        await checks.expect(
            try UserDefaultsApi.getAll(allowList: ["check.int", "check.bool", "check.missing"], suite: suite),
            result(map(["check.int": .int64(42), "check.bool": .bool(true)])))
        await checks.expect(
            try UserDefaultsApi.getKeys(suite: suite), result(strings(values.map(\.key))), unorderedLists: true)
        await checks.expect(try UserDefaultsApi.clear(allowList: ["check.bool"], suite: suite), result(null))
        await checks.expect(try UserDefaultsApi.getValue("check.bool", suite: suite), result(null))
        await checks.expect(try UserDefaultsApi.clear(allowList: ["check.double"], suite: suite), result(null))
        await checks.expect(
            try UserDefaultsApi.getKeys(suite: suite),
            result(strings(["check.string", "check.int", "check.whole", "check.list"])),
            unorderedLists: true)
    }
    // Clearing a whole suite, and what stays for the restart and for `channelbridge prefs get`.
    await checks.expect(try UserDefaultsApi.clear(suite: group), result(null))
    await checks.expect(try UserDefaultsApi.getAll(suite: group), result(map([:])))
    await checks.expect(try UserDefaultsApi.set("check.kept", "kept across a restart", suite: group), result(null))
    await checks.expect(try UserDefaultsApi.set("fromPlugin", "set through the plugin", suite: group), result(null))

    // SharedPreferences (the legacy API): the standard suite, keys with the "flutter." prefix.
    await checks.expect(LegacyUserDefaultsApi.getAll(prefix: "flutter."), result(map([:])))
    await checks.expect(LegacyUserDefaultsApi.setValue("flutter.name", "legacy"), result(null))
    await checks.expect(LegacyUserDefaultsApi.setValue("flutter.count", .int64(5)), result(null))
    await checks.expect(LegacyUserDefaultsApi.setValue("flutter.tags", strings(["p", "q"])), result(null))
    await checks.expect(LegacyUserDefaultsApi.setBool("flutter.flag", true), result(null))
    await checks.expect(LegacyUserDefaultsApi.setDouble("flutter.ratio", 1.5), result(null))
    await checks.expect(
        LegacyUserDefaultsApi.getAll(prefix: "flutter."),
        result(
            map([
                "flutter.name": "legacy", "flutter.count": .int64(5), "flutter.tags": strings(["p", "q"]),
                "flutter.flag": .bool(true), "flutter.ratio": .float64(1.5),
            ])))
    await checks.expect(LegacyUserDefaultsApi.remove("flutter.flag"), result(null))
    await checks.expect(
        LegacyUserDefaultsApi.clear(prefix: "flutter.", allowList: ["flutter.ratio"]), result(.bool(true)))
    await checks.expect(
        LegacyUserDefaultsApi.getAll(prefix: "flutter.", allowList: ["flutter.name", "flutter.count"]),
        result(map(["flutter.name": "legacy", "flutter.count": .int64(5)])))
}

/// The second run, after a restart and `channelbridge prefs set`.
func second(_ checks: inout ReplyChecks) async throws {
    // After a restart: what the first run left, in the standard suite and the group's.
    let standard: KeyValuePairs<String, StandardValue> = [
        "check.string": "text", "check.int": .int64(42), "check.whole": .float64(3), "check.list": strings(["a", "b"]),
    ]
    for (key, value) in standard {
        await checks.expect(try UserDefaultsApi.getValue(key, suite: nil), result(value))
    }
    await checks.expect(
        try UserDefaultsApi.getAll(allowList: standard.map(\.key), suite: nil), result(map(standard)))
    await checks.expect(
        LegacyUserDefaultsApi.getAll(prefix: "flutter."),
        result(map(["flutter.name": "legacy", "flutter.count": .int64(5), "flutter.tags": strings(["p", "q"])])))
    await checks.expect(try UserDefaultsApi.getValue("check.kept", suite: group), result("kept across a restart"))
    // What `channelbridge prefs set --data-dir` wrote to the group's store, from another process.
    await checks.expect(try UserDefaultsApi.getValue("fromCLI", suite: group), result("set by channelbridge prefs"))
    await checks.expect(try UserDefaultsApi.getValue("fromCLIInt", suite: group), result(.int64(12)))
    await checks.expect(
        try UserDefaultsApi.getAll(suite: group),
        result(
            map([
                "check.kept": "kept across a restart", "fromPlugin": "set through the plugin",
                "fromCLI": "set by channelbridge prefs", "fromCLIInt": .int64(12),
            ])))
    await checks.expect(
        PathProviderApi.getContainerPath(group), result(.string(dataDirectory + "/app-groups/\(group)/container")))
}
/// Runs the phase on one connection.
func run() async throws -> ReplyChecks {
    let connection = try await SocketConnection.connect(to: socket)
    defer { connection.close() }
    var checks = ReplyChecks(messenger: connection.messenger)
    if phase == "first" {
        try await first(&checks)
    } else {
        try await second(&checks)
    }
    return checks
}

let checks = try await run()
print("plugins-check \(phase): \(checks.passed) of \(checks.total) replies as expected")
exit(checks.passed == checks.total ? 0 : 1)
