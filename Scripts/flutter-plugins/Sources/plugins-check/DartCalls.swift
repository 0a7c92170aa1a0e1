import ChannelBridge

/// `UserDefaultsApi`, the calls `SharedPreferencesAsyncFoundation` makes (`suite` `nil`: the
/// standard suite, as for options without a suite name). It has no `remove`: the Dart half removes
/// a key with `clear` and an allow list of that key.
enum UserDefaultsApi {
    static func set(_ key: String, _ value: StandardValue, suite: String?) throws -> DartCall {
        try call("set", [.string(key), value], suite, "\"\(key)\", \(value)")
    }

    static func getValue(_ key: String, suite: String?) throws -> DartCall {
        try call("getValue", [.string(key)], suite, "\"\(key)\"")
    }

    static func getAll(allowList: [String]? = nil, suite: String?) throws -> DartCall {
        try call("getAll", [list(allowList)], suite, "allowList: \(list(allowList))")
    }

    static func getKeys(allowList: [String]? = nil, suite: String?) throws -> DartCall {
        try call("getKeys", [list(allowList)], suite, "allowList: \(list(allowList))")
    }

    static func clear(allowList: [String]? = nil, suite: String?) throws -> DartCall {
        try call("clear", [list(allowList)], suite, "allowList: \(list(allowList))")
    }

    private static func call(
        _ method: String, _ arguments: [StandardValue], _ suite: String?, _ shown: String
    ) throws -> DartCall {
        DartCall(
            label: "UserDefaultsApi.\(method)(\(shown), suite: \(suite ?? "standard"))",
            channel: DartSide.userDefaultsApi + method,
            arguments: arguments + [try DartSide.options(suiteName: suite)])
    }
}

/// `LegacyUserDefaultsApi`, the calls `SharedPreferencesFoundation` (the `SharedPreferences` API)
/// makes on the standard suite.
enum LegacyUserDefaultsApi {
    static func setBool(_ key: String, _ value: Bool) -> DartCall {
        call("setBool", [.string(key), .bool(value)])
    }

    static func setDouble(_ key: String, _ value: Double) -> DartCall {
        call("setDouble", [.string(key), .float64(value)])
    }

    static func setValue(_ key: String, _ value: StandardValue) -> DartCall {
        call("setValue", [.string(key), value])
    }

    static func remove(_ key: String) -> DartCall {
        call("remove", [.string(key)])
    }

    static func getAll(prefix: String, allowList: [String]? = nil) -> DartCall {
        call("getAll", [.string(prefix), list(allowList)])
    }

    static func clear(prefix: String, allowList: [String]? = nil) -> DartCall {
        call("clear", [.string(prefix), list(allowList)])
    }

    private static func call(_ method: String, _ arguments: [StandardValue]) -> DartCall {
        DartCall(
            label: "LegacyUserDefaultsApi.\(method)(\(arguments.map(\.description).joined(separator: ", ")))",
            channel: DartSide.legacyUserDefaultsApi + method, arguments: arguments)
    }
}

/// `PathProviderApi`, the calls `PathProviderFoundation` makes.
enum PathProviderApi {
    static func getDirectoryPath(_ type: DartSide.DirectoryType) throws -> DartCall {
        DartCall(
            label: "PathProviderApi.getDirectoryPath(\(type))",
            channel: DartSide.pathProviderApi + "getDirectoryPath", arguments: [try type.value])
    }

    static func getContainerPath(_ appGroupIdentifier: String) -> DartCall {
        DartCall(
            label: "PathProviderApi.getContainerPath(\"\(appGroupIdentifier)\")",
            channel: DartSide.pathProviderApi + "getContainerPath", arguments: [.string(appGroupIdentifier)])
    }
}

/// A `List<String>?` argument.
private func list(_ strings: [String]?) -> StandardValue {
    strings.map { .list($0.map(StandardValue.string)) } ?? .null
}
