import ChannelBridgeCodec
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
        UInt8(StandardEncoding.typedList(field)!.elementSize)
    }

    /// The Standard codec's type byte.
    var field: UInt8 {
        switch self {
        case .uInt8: StandardEncoding.uint8List
        case .int32: StandardEncoding.int32List
        case .int64: StandardEncoding.int64List
        case .float64: StandardEncoding.float64List
        case .float32: StandardEncoding.float32List
        }
    }

    init?(field: UInt8) {
        switch field {
        case StandardEncoding.uint8List: self = .uInt8
        case StandardEncoding.int32List: self = .int32
        case StandardEncoding.int64List: self = .int64
        case StandardEncoding.float64List: self = .float64
        case StandardEncoding.float32List: self = .float32
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
