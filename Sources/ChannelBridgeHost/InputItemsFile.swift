import ChannelBridgeCodec
import ChannelBridgePlatform
import FoundationEssentials

/// Reads the `--items FILE.json` format (normative text in `Protocol/extension-host.md`):
///
/// ```json
/// {"items": [{"title": "A page", "contentText": "look",
///             "attachments": [{"text": "hello"}, {"url": "https://example.com"},
///                             {"file": "photos/cat.png"},
///                             {"file": "/data/clip.bin", "typeIdentifier": "public.movie", "name": "clip.mp4"}]}]}
/// ```
///
/// Each attachment has exactly one of `text`, `url`, `file`; `typeIdentifier` overrides the
/// default (`public.plain-text`, `public.url`, or inferred from the file name); `name` (files only)
/// is the name the copy gets in the container. A relative `file` path is relative to the items
/// file's directory. Any other member is an error naming where it is.
package enum InputItemsFile {
    /// Reads and checks the file at `path`.
    package static func load(path: String) throws(HostError) -> [InputItem] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw HostError(.invalidInput, "--items \(path): cannot read the file: \(Self.reason(error))")
        }
        let base = URL(fileURLWithPath: AbsolutePath.of(path)).deletingLastPathComponent().path
        return try parse(Array(data), source: path, baseDirectory: base)
    }

    /// Parses the JSON text of an items file; `source` names it in errors.
    package static func parse(_ bytes: [UInt8], source: String, baseDirectory: String) throws(HostError) -> [InputItem]
    {
        func fail(_ where_: String, _ message: String) -> HostError {
            HostError(.invalidInput, "--items \(source): \(where_.isEmpty ? "" : where_ + ": ")\(message)")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw fail("", "not JSON: \(error.description)")
        }
        guard case .object(let top) = json else { throw fail("", "the file must hold an object {\"items\": [...]}") }
        try checkMembers(top, allowed: ["items"], where_: "", fail)
        guard case .array(let itemValues)? = json["items"] else {
            throw fail("", "\"items\" must be an array of items")
        }
        var items: [InputItem] = []
        for (itemIndex, itemValue) in itemValues.enumerated() {
            let itemPath = "items[\(itemIndex)]"
            guard case .object(let members) = itemValue else { throw fail(itemPath, "an item must be an object") }
            try checkMembers(members, allowed: ["title", "contentText", "attachments"], where_: itemPath, fail)
            var item = InputItem()
            item.title = try optionalString(itemValue["title"], "title", itemPath, fail)
            item.contentText = try optionalString(itemValue["contentText"], "contentText", itemPath, fail)
            guard case .array(let attachmentValues)? = itemValue["attachments"] else {
                throw fail(itemPath, "\"attachments\" must be an array (it may be empty)")
            }
            for (attachmentIndex, attachmentValue) in attachmentValues.enumerated() {
                let path = "\(itemPath).attachments[\(attachmentIndex)]"
                item.attachments.append(try attachment(attachmentValue, path: path, baseDirectory: baseDirectory, fail))
            }
            items.append(item)
        }
        return items
    }

    private static func attachment(
        _ value: JSONValue, path: String, baseDirectory: String,
        _ fail: (String, String) -> HostError
    ) throws(HostError) -> InputAttachment {
        guard case .object(let members) = value else { throw fail(path, "an attachment must be an object") }
        try checkMembers(members, allowed: ["text", "url", "file", "typeIdentifier", "name"], where_: path, fail)
        let contentKeys = members.map(\.key).filter { ["text", "url", "file"].contains($0) }
        guard contentKeys.count == 1, let contentKey = contentKeys.first else {
            throw fail(path, "an attachment needs exactly one of \"text\", \"url\" or \"file\"")
        }
        guard let content = try optionalString(value[contentKey], contentKey, path, fail) else {
            throw fail(path, "\"\(contentKey)\" must be a string")
        }
        let typeIdentifier = try optionalString(value["typeIdentifier"], "typeIdentifier", path, fail)
        if typeIdentifier?.isEmpty == true { throw fail(path, "\"typeIdentifier\" must not be empty") }
        let name = try optionalString(value["name"], "name", path, fail)
        if name != nil && contentKey != "file" { throw fail(path, "\"name\" is for file attachments only") }
        var attachment: InputAttachment
        switch contentKey {
        case "text":
            attachment = .text(content)
        case "url":
            guard !content.isEmpty else { throw fail(path, "\"url\" must not be empty") }
            attachment = .url(content)
        default:
            guard !content.isEmpty else { throw fail(path, "\"file\" must not be empty") }
            if let name {
                guard isFileName(name) else {
                    throw fail(path, "\"name\" must be one file name (no '/'), not \(name.debugDescription)")
                }
            } else {
                // The copy in the container is named after the path's last component: it must be
                // one file name too, or the copy would land outside the container ("a/..").
                let last = TypeIdentifiers.lastPathComponent(content)
                guard isFileName(last) else {
                    throw fail(path, "\"file\" \(content.debugDescription) does not end in a file name; give \"name\"")
                }
            }
            let absolute = content.hasPrefix("/") ? content : baseDirectory + "/" + content
            attachment = .file(path: absolute, name: name)
        }
        if let typeIdentifier { attachment.typeIdentifier = typeIdentifier }
        return attachment
    }

    /// One name a file can have in a directory: not empty, not `.` or `..`, no `/`, no NUL. Checked
    /// in bytes, as the file system reads the name: "/" followed by a combining mark is one
    /// `Character` that is not "/", yet still a separator.
    private static func isFileName(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && !bytes.elementsEqual(".".utf8) && !bytes.elementsEqual("..".utf8)
            && !bytes.contains(UInt8(ascii: "/")) && !bytes.contains(0)
    }

    private static func checkMembers(
        _ members: [JSONValue.Member], allowed: Set<String>, where_: String,
        _ fail: (String, String) -> HostError
    ) throws(HostError) {
        var seen: Set<String> = []
        for member in members {
            guard allowed.contains(member.key) else {
                let list = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                throw fail(where_, "unknown member \"\(member.key)\" (allowed: \(list))")
            }
            guard seen.insert(member.key).inserted else { throw fail(where_, "member \"\(member.key)\" given twice") }
        }
    }

    private static func optionalString(
        _ value: JSONValue?, _ key: String, _ where_: String,
        _ fail: (String, String) -> HostError
    ) throws(HostError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw fail(where_, "\"\(key)\" must be a string")
        }
    }

    /// Why reading, parsing or copying a file failed, as its message ends: the system's text for
    /// the errno behind a file error ("No such file or directory"), Foundation's text for data that
    /// is no property list, else the error's own text.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let posix as POSIXError:
            return systemMessage(number(posix.code))
        case let cocoa as CocoaError:
            // FileManager and `Data(contentsOf:)` wrap the errno they met as the underlying error.
            if let posix = cocoa.underlying as? POSIXError { return systemMessage(number(posix.code)) }
            if cocoa.code == .propertyListReadCorrupt { return notAPropertyList }
            return "The operation could not be completed. (NSCocoaErrorDomain error \(cocoa.code.rawValue).)"
        case DecodingError.dataCorrupted:
            // PropertyListDecoder's way of saying the data is no property list at all.
            return notAPropertyList
        default:
            return String(describing: error)
        }
    }

    /// What `PropertyListSerialization` said of a malformed property list.
    private static let notAPropertyList = "The operation could not be completed. The data is not in the correct format."

    /// The number behind a POSIX error code, read through `RawRepresentable` so that this module
    /// needs no Glibc import.
    private static func number<Code: RawRepresentable>(_ code: Code) -> Int32 where Code.RawValue == Int32 {
        code.rawValue
    }

    private static func systemMessage(_ code: Int32) -> String {
        Syscalls.errorText(code)
    }
}
