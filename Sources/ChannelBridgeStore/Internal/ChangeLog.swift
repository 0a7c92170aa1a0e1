import ChannelBridgeCodec

/// The `changeLog` member of `preferences.json`: a sequence number counting writes, and the keys of
/// the most recent writes, so a watcher that missed some writes can still name every key they set,
/// including a set to the value already stored (which comparing values cannot see).
struct ChangeLog: Sendable, Equatable {
    /// One write: its sequence number and the keys it set or removed, in order.
    struct Commit: Sendable, Equatable {
        var seq: UInt64
        var keys: [String]

        /// Keys compare by code units, as the store tells keys apart.
        static func == (lhs: Commit, rhs: Commit) -> Bool {
            lhs.seq == rhs.seq && lhs.keys.elementsEqual(rhs.keys, by: CodeUnitString.equal)
        }
    }

    /// How many writes the log keeps.
    static let maximumCommits = 32
    /// How many keys the kept writes may name together (older writes go first; the newest stays).
    static let maximumKeys = 4_096

    /// The sequence number of the latest write; 0 before any.
    var seq: UInt64
    /// The latest writes, oldest first, the last one numbered `seq`.
    var commits: [Commit]

    mutating func record(_ keys: [String]) {
        seq += 1
        commits.append(Commit(seq: seq, keys: keys))
        var total = commits.reduce(0) { $0 + $1.keys.count }
        while commits.count > 1 && (commits.count > Self.maximumCommits || total > Self.maximumKeys) {
            total -= commits.removeFirst().keys.count
        }
    }

    var json: JSONValue {
        .object([
            .init("seq", .number(String(seq))),
            .init(
                "commits",
                .array(
                    commits.map { commit in
                        .object([
                            .init("seq", .number(String(commit.seq))),
                            .init("keys", .array(commit.keys.map(JSONValue.string))),
                        ])
                    })),
        ])
    }

    /// Appends `json.text` (compact JSON) to `out` without building the `JSONValue` tree: every
    /// commit writes the log, and the tree of 32 commits cost about ten microseconds a write.
    func write(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        out.append(contentsOf: #","commits":["#.utf8)
        for (index, commit) in commits.enumerated() {
            out.append(contentsOf: (index == 0 ? #"{"seq":"# : #",{"seq":"#).utf8)
            out.append(contentsOf: String(commit.seq).utf8)
            out.append(contentsOf: #","keys":["#.utf8)
            for (keyIndex, key) in commit.keys.enumerated() {
                if keyIndex > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(key, into: &out)
            }
            out.append(contentsOf: "]}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
    }

    /// The largest `seq` a file may hold (2^53, the largest integer every JSON reader keeps exact).
    /// A larger one is malformed, so that `record` can never overflow: a file written with
    /// `UInt64.max` would otherwise stop the writer at its next commit.
    static let maximumSeq: UInt64 = 1 << 53

    /// Reads a change log; `nil` for anything malformed, because the log only refines change
    /// events and must never make the values unreadable.
    init?(json: JSONValue) {
        guard case .number(let seqText)? = json["seq"], let seq = UInt64(seqText), seq <= Self.maximumSeq,
            case .array(let items)? = json["commits"]
        else { return nil }
        var commits: [Commit] = []
        for item in items {
            guard case .number(let text)? = item["seq"], let commitSeq = UInt64(text),
                case .array(let keyValues)? = item["keys"],
                commitSeq <= seq, commitSeq > (commits.last?.seq ?? 0)
            else { return nil }
            var keys: [String] = []
            for keyValue in keyValues {
                guard case .string(let key) = keyValue else { return nil }
                keys.append(key)
            }
            commits.append(Commit(seq: commitSeq, keys: keys))
        }
        self.init(seq: seq, commits: commits)
    }

    init(seq: UInt64, commits: [Commit]) {
        self.seq = seq
        self.commits = commits
    }
}
