import ChannelBridgeCodec
import ChannelBridgeStore

/// The plugin's error replies, each naming what is wrong.
enum PreferenceErrors {
    typealias Code = SharedPreferenceAppGroupPlugin.ErrorCode

    static func appGroupHasNotBeenSet(method: String, entitled: [String]) -> MethodError {
        MethodError(
            code: Code.appGroupHasNotBeenSet,
            message: "You need to call setAppGroup before \(method); this session has no app group "
                + "(entitled app groups: \(list(entitled)))",
            details: ["method": .string(method), "entitledAppGroups": strings(entitled)])
    }

    static func notEntitled(_ appGroup: String, entitled: [String]) -> MethodError {
        MethodError(
            code: Code.appGroupNotEntitled,
            message: "Not entitled to the app group '\(appGroup)' (entitled app groups: \(list(entitled)))",
            details: ["appGroup": .string(appGroup), "entitledAppGroups": strings(entitled)])
    }

    static func wrongType(key: String, stored: StandardValue, wanted: PreferenceType, method: String) -> MethodError {
        let storedType = PreferenceType.typeName(of: stored)
        return MethodError(
            code: Code.wrongType,
            message: "\(method): the value of key '\(key)' is \(storedType), not \(wanted.name)",
            details: ["key": .string(key), "storedType": .string(storedType), "wantedType": .string(wanted.name)])
    }

    static func invalidArguments(method: String, argument: String?, _ problem: String) -> MethodError {
        MethodError(
            code: Code.invalidArguments,
            message: "\(method): \(problem)",
            details: ["method": .string(method), "argument": argument.map(StandardValue.string) ?? .null])
    }

    static func store(_ error: StoreError) -> MethodError {
        var details: [StandardValue.MapEntry] = [.init("storeCode", .string(error.code.description))]
        if let path = error.path { details.append(.init("path", .string(path))) }
        return MethodError(code: Code.storeError, message: error.message, details: .map(details))
    }

    static func storeUnavailable() -> MethodError {
        MethodError(
            code: Code.storeUnavailable,
            message: "No preference store is available: the host gave \(SharedPreferenceAppGroupPlugin.channelName) "
                + "no PreferenceStoreProvider")
    }

    private static func list(_ groups: [String]) -> String {
        groups.isEmpty ? "none" : groups.joined(separator: ", ")
    }

    private static func strings(_ values: [String]) -> StandardValue {
        .list(values.map(StandardValue.string))
    }
}
