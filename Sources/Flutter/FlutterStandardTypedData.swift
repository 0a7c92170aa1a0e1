public import Foundation

/// The element type of a `FlutterStandardTypedData`.
public enum FlutterStandardDataType: Int, Sendable {
    case uInt8
    case int32
    case int64
    case float32
    case float64

    /// Bytes per element.
    public var elementSize: UInt8 {
        switch self {
        case .uInt8: 1
        case .int32, .float32: 4
        case .int64, .float64: 8
        }
    }

    /// The Standard codec's type byte (8, 9, 10, 14, 11).
    var field: UInt8 {
        switch self {
        case .uInt8: 8
        case .int32: 9
        case .int64: 10
        case .float64: 11
        case .float32: 14
        }
    }

    init?(field: UInt8) {
        switch field {
        case 8: self = .uInt8
        case 9: self = .int32
        case 10: self = .int64
        case 11: self = .float64
        case 14: self = .float32
        default: return nil
        }
    }
}

/// A typed list of bytes, 32- or 64-bit integers or 32- or 64-bit floats, in the platform's
/// (little-endian) byte order: Dart's `Uint8List`, `Int32List`, `Int64List`, `Float32List` and
/// `Float64List` (Flutter's `FlutterStandardTypedData`).
///
/// ```swift
/// let bytes = FlutterStandardTypedData(bytes: Data([1, 2, 3]))
/// let ints = FlutterStandardTypedData(int32: [Int32(1), 2].withUnsafeBytes { Data($0) })
/// ```
// @unchecked: immutable (`let`s, `Data` a value).
open class FlutterStandardTypedData: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.
    /// The elements' bytes.
    public let data: Data
    public let type: FlutterStandardDataType
    /// `data.count / elementSize`.
    public let elementCount: UInt32
    public let elementSize: UInt8

    /// The data's length must be a whole number of elements; a value that is not cannot be
    /// encoded (the codec logs it and writes the whole elements only; channels answer with an
    /// error instead).
    public init(data: Data, type: FlutterStandardDataType) {
        self.data = data
        self.type = type
        self.elementSize = type.elementSize
        self.elementCount = UInt32(truncatingIfNeeded: data.count / Int(type.elementSize))
        super.init()
    }

    /// Plain bytes: a Dart `Uint8List`.
    public convenience init(bytes data: Data) { self.init(data: data, type: .uInt8) }
    /// 32-bit signed integers: a Dart `Int32List`.
    public convenience init(int32 data: Data) { self.init(data: data, type: .int32) }
    /// 64-bit signed integers: a Dart `Int64List`.
    public convenience init(int64 data: Data) { self.init(data: data, type: .int64) }
    /// 32-bit floats: a Dart `Float32List`.
    public convenience init(float32 data: Data) { self.init(data: data, type: .float32) }
    /// 64-bit floats: a Dart `Float64List`.
    public convenience init(float64 data: Data) { self.init(data: data, type: .float64) }

    /// Whether `data` is a whole number of elements.
    var isWhole: Bool { data.count % Int(elementSize) == 0 }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FlutterStandardTypedData else { return false }
        return type == other.type && elementCount == other.elementCount && data == other.data
    }

    open override var hash: Int {
        data.hashValue ^ type.rawValue
    }

    open override var description: String {
        "FlutterStandardTypedData(\(type), \(elementCount) elements)"
    }
}
