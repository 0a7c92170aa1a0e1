/// The elements of a `List` or of any typed list, each as a `StandardValue`.
enum ListView {
    case list([StandardValue])
    case uint8([UInt8])
    case int32([Int32])
    case int64([Int64])
    case float32([Float])
    case float64([Double])

    init?(_ value: StandardValue) {
        switch value {
        case .list(let elements): self = .list(elements)
        case .uint8List(let elements): self = .uint8(elements)
        case .int32List(let elements): self = .int32(elements)
        case .int64List(let elements): self = .int64(elements)
        case .float32List(let elements): self = .float32(elements)
        case .float64List(let elements): self = .float64(elements)
        default: return nil
        }
    }

    var count: Int {
        switch self {
        case .list(let elements): elements.count
        case .uint8(let elements): elements.count
        case .int32(let elements): elements.count
        case .int64(let elements): elements.count
        case .float32(let elements): elements.count
        case .float64(let elements): elements.count
        }
    }

    subscript(index: Int) -> StandardValue {
        switch self {
        case .list(let elements): elements[index]
        case .uint8(let elements): .int32(Int32(elements[index]))
        case .int32(let elements): .int32(elements[index])
        case .int64(let elements): .int64(elements[index])
        case .float32(let elements): .float64(Double(elements[index]))
        case .float64(let elements): .float64(elements[index])
        }
    }
}
