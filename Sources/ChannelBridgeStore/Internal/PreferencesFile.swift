package import ChannelBridgeCodec

/// The store's reader and writer of `preferences.json`, as one entry point each, for the fuzz
/// target (`Fuzz/ChannelBridgeFuzzTargets/PreferencesFileTarget.swift`): the same scanner, value
/// check and commit encoder the store uses, without the file system.
package enum PreferencesFile {
    /// What a read of `bytes` gives: every key and value in file order, the change log's `seq`,
    /// and the names of the top-level members this version does not know (kept by a rewrite).
    package struct Contents: Equatable, Sendable {
        package var values: [PreferenceEntry]
        package var seq: UInt64?
        package var otherMembers: [String]

        /// Keys and member names compare by code units, as the reader tells them apart.
        package static func == (lhs: Contents, rhs: Contents) -> Bool {
            lhs.values == rhs.values && lhs.seq == rhs.seq
                && lhs.otherMembers.elementsEqual(rhs.otherMembers, by: CodeUnitString.equal)
        }
    }

    /// Reads a file's bytes as the store reads them.
    package static func read(_ bytes: [UInt8], path: String) throws(StoreError) -> Contents {
        try contents(of: DocumentScanner.document(from: bytes, path: path), path: path)
    }

    /// The bytes a commit writes on top of the file `bytes` that stores each of `writes` in order
    /// (`nil` removes the key), as a group commit of the store does.
    package static func rewrite(
        _ bytes: [UInt8], path: String,
        writes: [(key: String, value: StandardValue?)]
    ) throws(StoreError) -> [UInt8] {
        var edit = DocumentEdit(base: try DocumentScanner.document(from: bytes, path: path), path: path)
        for (key, value) in writes {
            edit.set(
                key, text: try value.map { value throws(StoreError) in try ValueCheck.encoded(value, forKey: key) })
        }
        var buffers = DocumentEdit.Buffers()
        _ = try edit.result(into: &buffers)
        return buffers.bytes
    }

    private static func contents(of document: StoredDocument, path: String) throws(StoreError) -> Contents {
        Contents(
            values: try document.allValues(path: path), seq: document.changeLog?.seq,
            otherMembers: document.otherMembers.map(\.key))
    }
}
