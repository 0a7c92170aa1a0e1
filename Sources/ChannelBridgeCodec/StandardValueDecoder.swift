/// Decodes `Decodable` values from `StandardValue`s — shaped like Foundation's `JSONDecoder`, and
/// the inverse of `StandardValueEncoder`.
///
/// It reads what any Flutter peer may send for a type, not only what `StandardValueEncoder`
/// writes: an integer type accepts int32 and int64 alike when the value fits; `Double` accepts
/// integers that it holds exactly; an array accepts a `List` or any typed list whose elements fit;
/// `[UInt8]` and `Data` accept a `Uint8List` or a `List` of bytes; a missing key and `null` both
/// decode as `nil`; a map with duplicate keys keeps the last, as Dart does.
///
/// Errors are `DecodingError`s whose coding path names the field; `message(for:)` renders one as
/// a line a Dart or Swift programmer reads at once:
///
/// ```swift
/// do {
///     let user = try StandardValueDecoder().decode(User.self, from: value)
/// } catch let error as DecodingError {
///     print(StandardValueDecoder.message(for: error))   // `user.tags[2]`: expected a String, found int32 3
/// }
/// ```
public struct StandardValueDecoder: Sendable {
    /// Handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// `value` as a `T`.
    ///
    /// - Throws: `DecodingError` — `typeMismatch` for a value of another kind, `valueNotFound`
    ///   for `null` where a value is needed, `keyNotFound` for a missing field, `dataCorrupted`
    ///   for an integer out of the type's range or a raw value no enum case has.
    public func decode<T: Decodable>(_ type: T.Type, from value: StandardValue) throws -> T {
        let decoder = ValueDecoder(value: value, userInfo: userInfo.isEmpty ? [:] : userInfo.mapValues { $0 as Any })
        return try decoder.decodeOwnValue(as: T.self)
    }

    /// A decoding error as one line, the path first: "`user.tags[2]`: expected a String, found int32 3".
    /// An error about the top-level value has no path: "expected a Map, found String \"Ada\"".
    public static func message(for error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return codingErrorMessage(path: context.codingPath, context.debugDescription)
        case .keyNotFound(let key, let context):
            return codingErrorMessage(path: context.codingPath + [key], context.debugDescription)
        @unknown default:
            return "\(error)"
        }
    }
}
