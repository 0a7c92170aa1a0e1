/// Adds custom types (tags 128...255) to the Standard codec: Flutter's `writeValue` /
/// `readValueOfType` override, as a protocol.
///
/// ```swift
/// struct PointExtension: StandardCodecExtension {
///     func writeValue(_ value: CustomValue, to writer: inout StandardWriter) throws(CodecError) -> Bool {
///         guard let p = value.as(Point.self) else { return false }
///         writer.writeByte(128); writer.writeInt32(p.x); writer.writeInt32(p.y)
///         return true
///     }
///     func readValue(ofType type: UInt8, from reader: inout StandardReader) throws(CodecError) -> StandardValue? {
///         guard type == 128 else { return nil }
///         return .custom(CustomValue(Point(x: try reader.readInt32(), y: try reader.readInt32())))
///     }
/// }
/// let codec = StandardMessageCodec(extension: PointExtension())
/// ```
public protocol StandardCodecExtension: Sendable {
    /// Writes the tag and payload of `value` and returns `true` when this extension knows its type;
    /// returns `false` (writing nothing) otherwise.
    func writeValue(_ value: CustomValue, to writer: inout StandardWriter) throws(CodecError) -> Bool

    /// Reads the payload of a value whose type byte `type` was just read; `nil` when this extension
    /// does not know the type (the decoder then reports an unknown type).
    func readValue(ofType type: UInt8, from reader: inout StandardReader) throws(CodecError) -> StandardValue?
}
