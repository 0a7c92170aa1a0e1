import ChannelBridgeCodec
import ChannelBridgeMessenger

/// The Dart side of the ShareApi, written with ChannelBridge's own codec: the bytes Pigeon's
/// generated Dart code sends and reads. Its codec writes every int as an int64, an enum as type
/// 129 and its index, `Attachment` as 130 and `ShareItem` as 131, each followed by the list of
/// its fields.
enum DartSide {
    static let hostApi = "dev.flutter.pigeon.pigeon_api_example.ShareHostApi."
    static let flutterApi = "dev.flutter.pigeon.pigeon_api_example.ShareFlutterApi."

    struct Priority: CustomStandardValue {
        var index: Int64
        var customTag: UInt8 { 129 }
    }

    struct Attachment: CustomStandardValue {
        var path: String
        var sizeInBytes: Int64?
        var customTag: UInt8 { 130 }
    }

    struct Item: CustomStandardValue {
        var title: String
        var note: String?
        var priority: Priority
        var attachment: Attachment?
        var tags: [String]
        var customTag: UInt8 { 131 }
    }

    /// Pigeon's Dart codec, as a ChannelBridge codec extension.
    struct Codec: StandardCodecExtension {
        func writeValue(_ value: CustomValue, to writer: inout StandardWriter) throws(CodecError) -> Bool {
            if let priority = value.as(Priority.self) {
                writer.writeByte(129)
                try writer.writeValue(.int64(priority.index))
            } else if let attachment = value.as(Attachment.self) {
                writer.writeByte(130)
                try writer.writeValue([
                    .string(attachment.path), attachment.sizeInBytes.map(StandardValue.int64) ?? .null,
                ])
            } else if let item = value.as(Item.self) {
                writer.writeByte(131)
                try writer.writeValue([
                    .string(item.title), item.note.map(StandardValue.string) ?? .null,
                    .custom(CustomValue(item.priority)),
                    item.attachment.map { .custom(CustomValue($0)) } ?? .null,
                    .list(item.tags.map(StandardValue.string)),
                ])
            } else {
                return false
            }
            return true
        }

        func readValue(ofType type: UInt8, from reader: inout StandardReader) throws(CodecError) -> StandardValue? {
            let start = reader.offset
            switch type {
            case 129:
                guard case .int64(let index) = try reader.readValue() else { throw malformed("an enum index", start) }
                return .custom(CustomValue(Priority(index: index)))
            case 130:
                guard case .list(let fields) = try reader.readValue(), fields.count == 2,
                    case .string(let path) = fields[0]
                else { throw malformed("an Attachment", start) }
                return .custom(CustomValue(Attachment(path: path, sizeInBytes: fields[1].int64Value)))
            case 131:
                guard case .list(let fields) = try reader.readValue(), fields.count == 5,
                    case .string(let title) = fields[0],
                    let priority = fields[2].custom?.as(Priority.self), case .list(let tags) = fields[4]
                else { throw malformed("a ShareItem", start) }
                return .custom(
                    CustomValue(
                        Item(
                            title: title, note: fields[1].stringValue, priority: priority,
                            attachment: fields[3].custom?.as(Attachment.self),
                            tags: tags.compactMap(\.stringValue))))
            default:
                return nil
            }
        }

        private func malformed(_ what: String, _ offset: Int) -> CodecError {
            CodecError(.invalidEnvelope, "expected \(what)", offset: offset)
        }
    }

    static let codec = StandardMessageCodec(extension: Codec())

    /// Calls a host method as Pigeon's Dart code does: the reply list, or `nil` for a null reply
    /// (no handler on the channel), which Dart's code turns into a `channel-error`.
    static func call(
        _ method: String, _ arguments: [StandardValue]?, on messenger: any BinaryMessenger
    ) async throws -> [StandardValue]? {
        let message = try arguments.map { try codec.encode(.list($0)) }
        guard let reply = try await messenger.send(onChannel: hostApi + method, message: message) else { return nil }
        guard case .list(let list) = try codec.decode(reply) else {
            throw CodecError(.invalidEnvelope, "the reply is not a list")
        }
        return list
    }
}

extension StandardValue {
    var int64Value: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }

    var custom: CustomValue? {
        if case .custom(let value) = self { return value }
        return nil
    }
}
