import ChannelBridgeCodec
import Foundation

/// Property-list values (what `UserDefaults` keeps) as the store's typed values and back.
enum PropertyListValues {
    /// `value` as a store value, classified as the Standard writer classifies it; `nil` when it is
    /// not a property-list value. A `URL` becomes its path and a `Date` its seconds since 1970.
    static func standardValue(_ value: Any) -> StandardValue? {
        if let url = value as? URL { return .string(url.absoluteURL.path) }
        if let date = value as? Date { return .float64(date.timeIntervalSince1970) }
        switch FlutterValues.kind(of: value) {
        case .bool(let bool): return .bool(bool)
        case .int32(let number): return .int32(number)
        case .int64(let number): return .int64(number)
        case .float64(let number): return .float64(number)
        case .string(let string): return .string(string)
        case .bytes(let data): return .uint8List(Array(data))
        case .typedData(let typed): return .uint8List(Array(typed.data))
        case .list(let elements):
            var list: [StandardValue] = []
            list.reserveCapacity(elements.count)
            for element in elements {
                guard let converted = standardValue(element) else { return nil }
                list.append(converted)
            }
            return .list(list)
        case .map(let entries):
            var map: [StandardValue.MapEntry] = []
            map.reserveCapacity(entries.count)
            for (key, element) in entries {
                guard let key = key.base as? String, let converted = standardValue(element) else { return nil }
                map.append(StandardValue.MapEntry(.string(key), converted))
            }
            return .map(map)
        case .null, .unsupportedNumber, .unknown:
            return nil
        }
    }

    /// A store value as Foundation's `object(forKey:)` gives one on Linux: Swift numbers, `String`,
    /// `Data`, `[Any]` and `[String: Any]` (a map key that is not a string is described).
    static func object(_ value: StandardValue) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let bool): return bool
        case .int32(let number): return Int(number)
        case .int64(let number): return Int(number)
        case .float64(let number): return number
        case .string(let string): return string
        case .uint8List(let bytes): return Data(bytes)
        case .int32List(let numbers): return numbers.map { Int($0) }
        case .int64List(let numbers): return numbers.map { Int($0) }
        case .float32List(let numbers): return numbers.map { Double($0) }
        case .float64List(let numbers): return numbers
        case .list(let elements): return elements.map { object($0) as Any }
        case .map(let entries):
            var map: [String: Any] = [:]
            for entry in entries {
                let key: String
                if case .string(let string) = entry.key { key = string } else { key = "\(entry.key)" }
                map[key] = object(entry.value)
            }
            return map
        case .custom: return nil
        }
    }
}
