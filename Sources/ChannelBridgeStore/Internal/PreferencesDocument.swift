import ChannelBridgeCodec

/// The contents of `preferences.json`: format version 1, the values in typed value notation, and the
/// change log that lets watchers tell which keys each write touched (see Protocol/store.md).
package struct PreferencesDocument: Sendable, Equatable {
    static let version = 1

    var values = OrderedValues()
    /// `nil` when the file has no change log or one this store cannot read (then watchers fall back
    /// to comparing values).
    var changeLog: ChangeLog?
    /// Top-level members this version does not know, kept so a rewrite does not drop them.
    var otherMembers: [JSONValue.Member] = []

    /// The document of a group that has no preferences file yet.
    static let empty = PreferencesDocument()

    /// Records a write of `keys` in the change log, starting a new log when there is none.
    mutating func recordWrite(of keys: [String]) {
        var log = changeLog ?? ChangeLog(seq: 0, commits: [])
        log.record(keys)
        changeLog = log
    }
}

extension PreferencesDocument {
    /// Reads a preferences file's bytes; every fault names the file, and nothing is guessed.
    package init(decoding bytes: [UInt8], path: String) throws(StoreError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw StoreError(.corruptFile, "preferences file '\(path)' is not valid JSON: \(error)", path: path)
        }
        guard case .object(let members) = json else {
            throw StoreError(.corruptFile, "preferences file '\(path)' is not a JSON object", path: path)
        }
        var seen = Set<String>()
        for member in members where !seen.insert(member.key).inserted {
            throw StoreError(.corruptFile, "preferences file '\(path)' has the member '\(member.key)' twice", path: path)
        }
        switch json["version"] {
        case .number("1")?:
            break
        case .number(let other)?:
            throw StoreError(.unsupportedVersion,
                             "preferences file '\(path)' has format version \(other); this store reads version 1",
                             path: path)
        default:
            throw StoreError(.corruptFile, "preferences file '\(path)' has no numeric \"version\"", path: path)
        }
        guard case .object(let valueMembers)? = json["values"] else {
            throw StoreError(.corruptFile, "preferences file '\(path)' has no \"values\" object", path: path)
        }
        for member in valueMembers {
            if values[member.key] != nil {
                throw StoreError(.corruptFile, "preferences file '\(path)' has the key '\(member.key)' twice",
                                 path: path)
            }
            do {
                values[member.key] = try TypedValueNotation.value(from: member.value)
            } catch {
                throw StoreError(.corruptFile,
                                 "preferences file '\(path)': the value of key '\(member.key)' is not typed value notation: \(error)",
                                 path: path)
            }
        }
        changeLog = json["changeLog"].flatMap(ChangeLog.init(json:))
        otherMembers = members.filter { !["version", "values", "changeLog"].contains($0.key) }
    }

    /// The file's text: one value per line, so a person can read and diff it.
    package func encoded() -> [UInt8] {
        var text = "{\n  \"version\": \(Self.version),\n  \"values\": {"
        for (index, key) in values.keys.enumerated() {
            text += index == 0 ? "\n    " : ",\n    "
            text += JSONValue.string(key).text
            text += ": "
            text += TypedValueNotation.json(for: values[key]!).text
        }
        text += values.isEmpty ? "}" : "\n  }"
        if let changeLog {
            text += ",\n  \"changeLog\": " + changeLog.json.text
        }
        for member in otherMembers {
            text += ",\n  " + JSONValue.string(member.key).text + ": " + member.value.text
        }
        text += "\n}\n"
        return Array(text.utf8)
    }
}

extension PreferencesDocument {
    /// The changes a watcher that last saw `old` reports on seeing `self`: every key a write since
    /// `old` touched (from the change log), plus every key whose value differs (which covers writers
    /// that keep no log and writes older than the log reaches), each with its value now.
    func changes(since old: PreferencesDocument) -> [StoreChange] {
        var touched: [String] = []
        var seen = Set<String>()
        func touch(_ key: String) {
            if seen.insert(key).inserted { touched.append(key) }
        }
        if let log = changeLog {
            let oldSeq = old.changeLog?.seq ?? 0
            // A sequence number that went backwards means the log was started again: all of it is new.
            let since = log.seq >= oldSeq ? oldSeq : 0
            for commit in log.commits where commit.seq > since {
                commit.keys.forEach(touch)
            }
        }
        for key in values.keys where old.values[key] != values[key] { touch(key) }
        for key in old.values.keys where values[key] == nil { touch(key) }
        return touched.map { StoreChange(key: $0, value: values[$0]) }
    }
}
