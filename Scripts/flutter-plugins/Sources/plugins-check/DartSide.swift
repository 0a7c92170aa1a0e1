import ChannelBridge

/// What the plugins' Dart halves send, written with ChannelBridge's codec: Pigeon's Dart code
/// sends a method's arguments as a list on `dev.flutter.pigeon.<package>.<Api>.<method>`, every
/// `int` as an int64, and the one custom type of each package as type 129 followed by its
/// encoding (`SharedPreferencesPigeonOptions`: the list of its fields; `DirectoryType`: its index).
/// The reply is `[result]`, or `[code, message, details]` for an error.
enum DartSide {
    static let codec = StandardMessageCodec()

    static let userDefaultsApi = "dev.flutter.pigeon.shared_preferences_foundation.UserDefaultsApi."
    static let legacyUserDefaultsApi = "dev.flutter.pigeon.shared_preferences_foundation.LegacyUserDefaultsApi."
    static let pathProviderApi = "dev.flutter.pigeon.path_provider_foundation.PathProviderApi."

    /// `SharedPreferencesPigeonOptions(suiteName:)`: `nil` is the standard suite.
    static func options(suiteName: String?) throws -> StandardValue {
        try custom(129, .list([suiteName.map(StandardValue.string) ?? .null]))
    }

    /// `DirectoryType`, by its index in the Dart enum (and its raw value in Swift).
    enum DirectoryType: Int64, CaseIterable {
        case applicationDocuments, applicationSupport, downloads, library, temp, applicationCache

        var value: StandardValue {
            get throws { try DartSide.custom(129, .int64(rawValue)) }
        }
    }

    /// A custom value as Pigeon's Dart codec writes it: the type byte, then the value's own bytes.
    static func custom(_ tag: UInt8, _ encoded: StandardValue) throws -> StandardValue {
        .custom(CustomValue(RawCustomValue(tag: tag, payload: try codec.encode(encoded))))
    }

    /// Sends `arguments` as the Dart half does and decodes the reply (`nil`: a null reply, which
    /// the Dart half turns into a `channel-error`).
    static func send(
        _ channel: String, _ arguments: [StandardValue], on messenger: any BinaryMessenger
    ) async throws -> StandardValue? {
        let reply = try await messenger.send(onChannel: channel, message: try codec.encode(.list(arguments)))
        return try reply.map { try codec.decode($0) }
    }
}
