public import Foundation

/// Makes the readers and writers a Standard codec uses (Flutter's `FlutterStandardReaderWriter`).
/// Subclass it to hand out reader and writer subclasses that know custom types.
///
/// ```swift
/// final class PointReaderWriter: FlutterStandardReaderWriter {
///     override func reader(with data: Data) -> FlutterStandardReader { PointReader(data: data) }
///     override func writer(with data: NSMutableData) -> FlutterStandardWriter { PointWriter(data: data) }
/// }
/// let codec = FlutterStandardMessageCodec(readerWriter: PointReaderWriter())
/// ```
open class FlutterStandardReaderWriter: NSObject {
    public override init() {
        super.init()
    }

    open func writer(with data: NSMutableData) -> FlutterStandardWriter {
        FlutterStandardWriter(data: data)
    }

    open func reader(with data: Data) -> FlutterStandardReader {
        FlutterStandardReader(data: data)
    }
}
