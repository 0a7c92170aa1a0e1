import Foundation

/// How this module sees the values it writes and reads, as the iOS embedder sees them.
enum FlutterValues {
    /// What the Standard writer makes of a value, decided the way Flutter's iOS writer decides:
    /// by the Objective-C class it would have, and for numbers by the storage size Swift's
    /// bridging gives them (an `Int` or `Int64` is 8 bytes: int64; an `Int32` 4: int32).
    enum Kind {
        case null
        case bool(Bool)
        case int32(Int32)
        case int64(Int64)
        case float64(Double)
        case string(String)
        case typedData(FlutterStandardTypedData)
        case bytes(Data)
        case list([Any])
        case map([AnyHashable: Any])
        /// A number the codec cannot carry (an unsigned value above Int64.max).
        case unsupportedNumber(String)
        /// Not a standard value: a subclass's `writeValue(_:)` may know it.
        case unknown
    }

    /// Strips every `Optional` layer; `nil` for `Optional.none` at any depth.
    static func unwrap(_ value: Any) -> Any? {
        var current = value
        while let optional = current as? any FlutterOptionalValue {
            guard let wrapped = optional.flutterWrapped else { return nil }
            current = wrapped
        }
        return current
    }

    static func kind(of value: Any) -> Kind {
        guard let value = unwrap(value) else { return .null }
        if value is NSNull { return .null }
        let type = Swift.type(of: value)
        // Swift numbers first, by exact type: `as? Int` would also match an NSNumber.
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(Bool.self): return .bool(value as! Bool)
        case ObjectIdentifier(Int.self): return .int64(Int64(value as! Int))
        case ObjectIdentifier(Int64.self): return .int64(value as! Int64)
        case ObjectIdentifier(Int32.self): return .int32(value as! Int32)
        case ObjectIdentifier(Int16.self): return .int32(Int32(value as! Int16))
        case ObjectIdentifier(Int8.self): return .int32(Int32(value as! Int8))
        case ObjectIdentifier(UInt8.self): return .int32(Int32(value as! UInt8))
        case ObjectIdentifier(UInt16.self): return .int32(Int32(value as! UInt16))
        // NSNumber stores an unsigned int as a signed 64-bit number, and an unsigned 64-bit one
        // as 64 bits while it fits.
        case ObjectIdentifier(UInt32.self): return .int64(Int64(value as! UInt32))
        case ObjectIdentifier(UInt.self): return unsigned(UInt64(value as! UInt))
        case ObjectIdentifier(UInt64.self): return unsigned(value as! UInt64)
        case ObjectIdentifier(Double.self): return .float64(value as! Double)
        case ObjectIdentifier(Float.self): return .float64(Double(value as! Float))
        case ObjectIdentifier(CGFloat.self): return .float64(Double(value as! CGFloat))
        default: break
        }
        if type is NSNumber.Type, let number = value as? NSNumber {
            return kind(of: number)
        }
        if let string = value as? String { return .string(string) }
        if let typed = value as? FlutterStandardTypedData { return .typedData(typed) }
        if let data = value as? Data { return .bytes(data) }
        if let list = value as? [Any] { return .list(list) }
        if let map = value as? [AnyHashable: Any] { return .map(map) }
        return .unknown
    }

    private static func unsigned(_ value: UInt64) -> Kind {
        if let signed = Int64(exactly: value) { return .int64(signed) }
        return .unsupportedNumber("\(value)")
    }

    /// An NSNumber, as Flutter's iOS writer classifies it through Core Foundation: a boolean, a
    /// floating-point number, else by its stored byte size. Read here from `objCType`, which on
    /// Linux reports the storage Core Foundation chose (a number that fits in 32 bits says "i"),
    /// and which, unlike the CF functions, is safe on every NSNumber subclass (JSONSerialization
    /// gives an NSDecimalNumber for -2^63): "c" is a boolean (an Int8 is stored as "i" on Linux),
    /// "f" and "d" floats (an NSDecimalNumber is "d", a float on iOS too), "q"/"l"/"I" 8 bytes,
    /// "Q"/"L" 8 bytes while the value fits in an Int64, the rest 4 bytes.
    private static func kind(of number: NSNumber) -> Kind {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .float64(number.doubleValue)
        case "q", "l", "I": return .int64(number.int64Value)
        case "Q", "L":
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int64.max) ? .int64(Int64(unsigned)) : .unsupportedNumber(number.description)
        case "i", "s", "C", "S": return .int32(number.int32Value)
        case let other: return .unsupportedNumber("\(number) (objCType \(other))")
        }
    }

    /// A decoded map key as a dictionary key: null is `Optional<AnyHashable>.none` (so that
    /// `as? [String?: …]` gives `nil`), lists and maps become NSArray / NSDictionary, anything
    /// else not hashable is kept by identity.
    static func key(_ key: Any?) -> AnyHashable {
        guard let key else { return AnyHashable(Optional<AnyHashable>.none) }
        if let hashable = key as? AnyHashable { return hashable }
        if let list = key as? [Any?] { return AnyHashable(NSArray(array: list.map { $0 ?? NSNull() })) }
        if let map = key as? [AnyHashable: Any?] {
            let dictionary = NSMutableDictionary()
            for (k, v) in map { dictionary[k] = v ?? NSNull() }
            return AnyHashable(dictionary)
        }
        return AnyHashable(IdentityKey(key))
    }

    /// Equality of two codec values: NSObject `isEqual`, hashable equality, element-wise for
    /// lists and maps; `nil` and NSNull are equal.
    static func isEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        let left = lhs.flatMap(unwrap), right = rhs.flatMap(unwrap)
        let leftNull = left == nil || left is NSNull, rightNull = right == nil || right is NSNull
        if leftNull || rightNull { return leftNull && rightNull }
        guard let left, let right else { return false }
        if let a = left as? [Any], let b = right as? [Any] {
            return a.count == b.count && zip(a, b).allSatisfy { isEqual($0, $1) }
        }
        if let a = left as? [AnyHashable: Any], let b = right as? [AnyHashable: Any] {
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { isEqual(value, $0) } ?? false }
        }
        if let a = left as? NSObject, let b = right as? NSObject { return a.isEqual(b) }
        if let a = left as? AnyHashable, let b = right as? AnyHashable { return a == b }
        return false
    }
}

/// Lets `FlutterValues.unwrap` see through an `Optional` held in an `Any`.
protocol FlutterOptionalValue {
    var flutterWrapped: Any? { get }
}

extension Optional: FlutterOptionalValue {
    var flutterWrapped: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

/// A map key of a type that is not hashable, compared by identity of its box.
// @unchecked: immutable (one `let`); compared by the box's identity, never by reading the value.
final class IdentityKey: Hashable, @unchecked Sendable {
    // @unchecked: immutable; the value is only read back by whoever decoded it.
    let value: Any

    init(_ value: Any) { self.value = value }

    static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
