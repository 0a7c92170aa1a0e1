import ChannelBridgeCodec
import ChannelBridgeStore

/// Entry point: the store's `preferences.json` reader and commit writer, `PreferencesFile.read` and
/// `PreferencesFile.rewrite` (the scanner, value check and encoder a group commit uses).
enum PreferencesFileTarget: FuzzTarget {
    static let name = "preferences-file"
    static let path = "fuzz/preferences.json"

    static func run(_ input: [UInt8]) {
        let contents: PreferencesFile.Contents
        do {
            contents = try PreferencesFile.read(input, path: path)
        } catch {
            require(
                [.corruptFile, .unsupportedVersion].contains(error.code),
                "the reader failed with \(error.code): \(error)")
            return
        }
        // A commit that writes nothing new (every value stored again as it is) keeps every value
        // and unknown member, in order, and counts one more write in the change log.
        let same = contents.values.map { (key: $0.key, value: Optional($0.value)) }
        // A commit that removes the first key and adds a new one keeps the rest as it was.
        var added = "fuzz-added"
        while contents.values.contains(where: { $0.key == added }) { added += "+" }
        var changed = contents.values.dropFirst().map { $0 }
        changed.append(PreferenceEntry(key: added, value: .int32(7)))
        let edits: [([(key: String, value: StandardValue?)], [PreferenceEntry])] = [
            (same, contents.values),
            (
                (contents.values.first.map { [(key: $0.key, value: nil)] } ?? [])
                    + [(key: added, value: .int32(7))], changed
            ),
        ]
        for (writes, expected) in edits {
            do {
                let written = try PreferencesFile.rewrite(input, path: path, writes: writes)
                let again = try PreferencesFile.read(written, path: path)
                require(again.values == expected, "a rewritten preferences file reads back other values")
                require(again.otherMembers == contents.otherMembers, "a rewrite lost or reordered unknown members")
                require(again.seq == (contents.seq ?? 0) + 1, "a rewrite did not count one more write")
            } catch {
                require(
                    error.code == .invalidValue, "a rewrite of a file that read failed with \(error.code): \(error)")
            }
        }
    }

    /// Files holding the vectors' values (as a writer of this store lays them out), and the
    /// committed hand-made files (change logs, unknown members, faults).
    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        var seeds = try source.committed(name)
        let values = try source.vectors("standard-").flatMap(\.values).filter { !CodecChecks.containsCustom($0) }
        for start in stride(from: 0, to: values.count, by: 8) {
            var text = #"{"version":1,"values":{"#
            for (index, value) in values[start..<min(values.count, start + 8)].enumerated() {
                if index > 0 { text += "," }
                text += "\"k\(index)\":" + TypedValueNotation.canonicalText(value)
            }
            text += #"},"changeLog":{"seq":3,"commits":[{"seq":3,"keys":["k0"]}]}}"#
            seeds.append(Array(text.utf8))
        }
        return seeds
    }
}
