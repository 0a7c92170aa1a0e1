/// Encodes `Encodable` values as `StandardValue`s, the values Flutter's `StandardMessageCodec`
/// carries — shaped like Foundation's `JSONEncoder`.
///
/// What Dart sees on the other side:
///
/// | Swift | Standard value (Dart) |
/// |---|---|
/// | a struct or class (keyed container) | a map with `String` keys, in the order the fields are encoded |
/// | an array, a set (unkeyed container) | a `List` |
/// | `String`, `Bool`, `Double`, `Float` | `String`, `bool`, `double` |
/// | any integer | an `int`: int32 when it fits, int64 otherwise, as Dart writes it |
/// | `nil` | `null`, under its key (a missing key decodes as `nil` too) |
/// | `[UInt8]`, `Data` | `Uint8List` |
/// | `[Int32]`, `[Int64]`, `[Double]`, `[Float]` | a `List`, or `Int32List`… with `.typedLists` |
/// | an enum with a raw value | its raw value |
/// | a dictionary | a `Map` with the encoded keys, whatever their type |
/// | `StandardValue` | itself |
///
/// ```swift
/// struct User: Codable { var name: String; var tags: [String]; var avatar: Data? }
/// let value = try StandardValueEncoder().encode(User(name: "Ada", tags: ["math"], avatar: nil))
/// // {"name": "Ada", "tags": ["math"], "avatar": null}
/// let user = try StandardValueDecoder().decode(User.self, from: value)
/// ```
///
/// Dictionaries become maps sorted by key when every key is a string or every key an integer (so
/// the bytes are the same on every run), in the dictionary's order otherwise.
public struct StandardValueEncoder: Sendable {
    /// How arrays of fixed-width numbers are written.
    public enum TypedListStrategy: Sendable, Hashable {
        /// As plain lists, which any Dart code reads as `List<int>` / `List<double>` (the default).
        case plainLists
        /// `[Int32]`, `[Int64]`, `[Double]`, `[Float]` as `Int32List`, `Int64List`,
        /// `Float64List`, `Float32List`: compact, and what Dart code that casts to those types needs.
        case typedLists
    }

    /// How arrays of fixed-width numbers are written; `.plainLists` by default.
    public var typedListStrategy: TypedListStrategy
    /// Handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(typedListStrategy: TypedListStrategy = .plainLists, userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.typedListStrategy = typedListStrategy
        self.userInfo = userInfo
    }

    /// The Standard form of `value`.
    ///
    /// - Throws: `EncodingError.invalidValue` for an integer Dart cannot hold (a `UInt64` above
    ///   `Int64.max`), or a value that encodes nothing at all.
    public func encode<T: Encodable>(_ value: T) throws -> StandardValue {
        let encoder = ValueEncoder(options: ValueEncoder.Options(self), capacityHint: TypeFacts.mapCapacity(of: T.self))
        if let special = try encoder.encodeSpecial(value) { return special }
        do {
            try value.encode(to: encoder)
        } catch {
            encoder.dismantle()  // its nested encoders and it hold each other
            throw error
        }
        TypeFacts.recordMapCapacity(encoder.entryCount, of: T.self)
        guard let result = try encoder.takeValue() else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "\(T.self) did not encode any value"))
        }
        return result
    }

    /// An encoding error as one line: "`user.id`: UInt64 18446744073709551615 does not fit in a
    /// Dart int".
    public static func message(for error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            return codingErrorMessage(path: context.codingPath, context.debugDescription)
        @unknown default:
            return "\(error)"
        }
    }
}
