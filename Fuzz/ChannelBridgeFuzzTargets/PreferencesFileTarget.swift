import ChannelBridgeCodec
import ChannelBridgeStore

/// Entry point: the store's `preferences.json` reader, `PreferencesDocument(decoding:path:)`.
enum PreferencesFileTarget: FuzzTarget {
    static let name = "preferences-file"

    static func run(_ input: [UInt8]) {
        let document: PreferencesDocument
        do {
            document = try PreferencesDocument(decoding: input, path: "fuzz/preferences.json")
        } catch {
            require([.corruptFile, .unsupportedVersion].contains(error.code), "the reader failed with \(error.code): \(error)")
            return
        }
        // What the store reads, it writes back readably and unchanged (values, log, unknown members).
        let written = document.encoded()
        do {
            let again = try PreferencesDocument(decoding: written, path: "fuzz/preferences.json")
            require(again == document, "a rewritten preferences file reads back differently")
            require(again.encoded() == written, "rewriting is not a fixed point")
        } catch {
            finding("a rewritten preferences file does not read back: \(error)")
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
