// Coding paths and coding errors as one line a Swift or Dart programmer reads at once.

/// A coding path read the way a Swift or Dart programmer writes an access: `user.tags[2]`.
func renderCodingPath(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        let kind = (key as? StandardCodingKey)?.kind ?? .field
        switch kind {
        case .index, .otherKey:
            text += "[\(key.stringValue)]"
        case .stringKey where !isPlainName(key.stringValue):
            text += "[\"\(key.stringValue)\"]"
        case .field, .stringKey:
            text += text.isEmpty ? key.stringValue : "." + key.stringValue
        }
    }
    return text
}

/// Names that read unambiguously after a dot.
private func isPlainName(_ name: String) -> Bool {
    !name.isEmpty
        && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F
        }
}

/// "`path`: message", or the message alone for the top-level value.
func codingErrorMessage(path: [any CodingKey], _ message: String) -> String {
    path.isEmpty ? message : "`\(renderCodingPath(path))`: \(message)"
}
