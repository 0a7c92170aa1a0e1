import ChannelBridgeCodec
import Flutter
import Foundation

/// Test-side model of the iOS view of Standard values, written independently of the module.
enum IOSValues {
    /// What iOS code would pass to the writer for `value`: the Swift type whose NSNumber has the
    /// value's storage size, typed data for typed lists, arrays and dictionaries.
    static func swiftValue(_ value: StandardValue) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let b): return b
        case .int32(let v): return v
        case .int64(let v): return v
        case .float64(let v): return v
        case .string(let s): return s
        case .uint8List(let v): return FlutterStandardTypedData(bytes: Data(v))
        case .int32List(let v): return FlutterStandardTypedData(int32: v.withUnsafeBytes { Data($0) })
        case .int64List(let v): return FlutterStandardTypedData(int64: v.withUnsafeBytes { Data($0) })
        case .float32List(let v): return FlutterStandardTypedData(float32: v.withUnsafeBytes { Data($0) })
        case .float64List(let v): return FlutterStandardTypedData(float64: v.withUnsafeBytes { Data($0) })
        case .list(let elements): return elements.map(swiftValue)
        case .map(let entries):
            var map: [AnyHashable: Any?] = [:]
            for entry in entries { map[key(entry.key)] = .some(swiftValue(entry.value)) }
            return map
        case .custom: return nil
        }
    }

    static func key(_ value: StandardValue) -> AnyHashable {
        switch value {
        case .null: return AnyHashable(Optional<AnyHashable>.none)
        case .list(let elements): return AnyHashable(NSArray(array: elements.map { swiftValue($0) ?? NSNull() }))
        case .map: return AnyHashable(NSDictionary(dictionary: swiftValue(value) as! [AnyHashable: Any]))
        default: return swiftValue(value) as! AnyHashable
        }
    }

    /// Whether a map in `value` has keys that one Swift dictionary cannot hold apart (so writing
    /// it back cannot give the same bytes), or more than one entry (whose order a dictionary
    /// does not keep).
    static func hasUnorderedMaps(_ value: StandardValue) -> Bool {
        switch value {
        case .list(let elements): return elements.contains(where: hasUnorderedMaps)
        case .map(let entries):
            return entries.count > 1 || entries.contains { hasUnorderedMaps($0.key) || hasUnorderedMaps($0.value) }
        default: return false
        }
    }

    static func mapKeysCollapse(_ value: StandardValue) -> Bool {
        switch value {
        case .list(let elements): return elements.contains(where: mapKeysCollapse)
        case .map(let entries):
            let distinct = Set(entries.map { key($0.key) }).count
            return distinct != entries.count
                || entries.contains { mapKeysCollapse($0.key) || mapKeysCollapse($0.value) }
        default: return false
        }
    }

    /// Whether `actual`, as the Flutter reader returned it, is `expected` seen from iOS: numbers
    /// are NSNumbers of the right kind (a boolean, a float, an integer of that value), null inside
    /// containers is nil, a repeated map key keeps its first value.
    static func matches(_ actual: Any?, _ expected: StandardValue) -> Bool {
        let actual = unwrapped(actual)
        switch expected {
        case .null:
            return actual == nil || actual is NSNull
        case .bool(let b):
            guard let number = actual as? NSNumber, isBoolean(number) else { return false }
            return number.boolValue == b
        case .int32(let v):
            guard let number = actual as? NSNumber, !isBoolean(number), !isFloat(number) else { return false }
            return number.int64Value == Int64(v)
        case .int64(let v):
            guard let number = actual as? NSNumber, !isBoolean(number), !isFloat(number) else { return false }
            return number.int64Value == v
        case .float64(let v):
            guard let number = actual as? NSNumber, isFloat(number) else { return false }
            let d = number.doubleValue
            // Core Foundation keeps one NaN (on iOS too): payloads are not compared.
            return v.isNaN ? d.isNaN : d.bitPattern == v.bitPattern
        case .string(let s):
            return (actual as? String) == s
        case .uint8List(let v): return typed(actual, .uInt8, v.withUnsafeBytes { Data($0) })
        case .int32List(let v): return typed(actual, .int32, v.withUnsafeBytes { Data($0) })
        case .int64List(let v): return typed(actual, .int64, v.withUnsafeBytes { Data($0) })
        case .float32List(let v): return typed(actual, .float32, v.withUnsafeBytes { Data($0) })
        case .float64List(let v): return typed(actual, .float64, v.withUnsafeBytes { Data($0) })
        case .list(let elements):
            guard let list = list(actual), list.count == elements.count else { return false }
            return zip(list, elements).allSatisfy { matches($0, $1) }
        case .map(let entries):
            guard let map = map(actual) else { return false }
            // A key equal to an earlier one (as dictionary keys: 1 as int32 and as int64 are
            // equal, as CFEqual finds them on iOS) keeps the earlier value.
            var seen: Set<AnyHashable> = []
            for entry in entries where seen.insert(key(entry.key)).inserted {
                guard let found = map.first(where: { matches($0.key.base, entry.key) }),
                    matches(found.value, entry.value)
                else { return false }
            }
            return map.count == seen.count
        case .custom:
            return false
        }
    }

    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.flatMap { unwrapped($0.value) }
        }
        return value
    }

    static func list(_ value: Any?) -> [Any?]? {
        if let array = value as? [Any?] { return array }
        if let array = value as? NSArray { return array.map { $0 is NSNull ? nil : $0 } }
        return nil
    }

    static func map(_ value: Any?) -> [AnyHashable: Any?]? {
        if let map = value as? [AnyHashable: Any?] { return map }
        if let dictionary = value as? NSDictionary {
            var map: [AnyHashable: Any?] = [:]
            for (key, entry) in dictionary {
                let value: Any? = entry is NSNull ? nil : entry
                map[key as! AnyHashable] = .some(value)
            }
            return map
        }
        return nil
    }

    static func typed(_ actual: Any?, _ type: FlutterStandardDataType, _ bytes: Data) -> Bool {
        guard let typed = actual as? FlutterStandardTypedData else { return false }
        return typed.type == type && typed.data == bytes
            && Int(typed.elementCount) * Int(typed.elementSize) == bytes.count
    }

    /// A boolean NSNumber: one of the two shared boolean objects.
    static func isBoolean(_ number: NSNumber) -> Bool {
        number === NSNumber(value: true) || number === NSNumber(value: false)
    }

    static func isFloat(_ number: NSNumber) -> Bool {
        ["f", "d"].contains(String(cString: number.objCType))
    }
}
