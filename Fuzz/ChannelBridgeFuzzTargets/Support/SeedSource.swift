import ChannelBridgeCodec
import ChannelBridgeConformance
import Foundation

/// Where seeds come from: the repository's vector files and `Fuzz/Seeds/TARGET/`.
package struct SeedSource {
    package let repository: String
    /// Longer inputs are left out: the fuzzer mutates short inputs faster, and the long vectors
    /// (3 MB of size boundaries) add nothing a short one does not.
    package var maximumLength = 16 << 10

    package init(repository: String) {
        self.repository = repository
    }

    var vectorDirectory: String { repository + "/Protocol/vectors" }

    /// Every codec vector in the files whose names start with `prefix` (`standard-`, `json-`).
    func vectors(_ prefix: String) throws -> [Vector] {
        try VectorFile.files(in: vectorDirectory)
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(prefix) }
            .flatMap { try VectorFile.load(path: $0) }
    }

    /// The hex of every entry in the framing vector files (whole frames, valid and invalid).
    func framingStreams() throws -> [[UInt8]] {
        var streams: [[UInt8]] = []
        for path in try VectorFile.files(in: vectorDirectory)
        where (path as NSString).lastPathComponent.hasPrefix("framing-") {
            let json = try JSONValue.parse(Array(FileManager.default.contents(atPath: path) ?? Data()))
            guard case .array(let entries)? = json["vectors"] else { continue }
            for entry in entries {
                if case .string(let hex)? = entry["hex"] {
                    streams.append(try Hex.decode(hex.filter { !$0.isWhitespace }))
                }
            }
        }
        return streams
    }

    /// The committed seeds of `target`: `Fuzz/Seeds/TARGET/*`.
    func committed(_ target: String) throws -> [[UInt8]] {
        let directory = repository + "/Fuzz/Seeds/" + target
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().compactMap {
            FileManager.default.contents(atPath: directory + "/" + $0).map { Array($0) }
        }
    }

    /// Writes `target`'s seeds into `directory`, one file each, named by index.
    package func write(_ target: AnyFuzzTarget, to directory: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var unique: [[UInt8]] = []
        var seen = Set<[UInt8]>()
        for seed in try target.seeds(self) where seed.count <= maximumLength && seen.insert(seed).inserted {
            unique.append(seed)
        }
        for (index, seed) in unique.enumerated() {
            let path = directory + "/" + String(format: "seed-%04d", index)
            guard FileManager.default.createFile(atPath: path, contents: Data(seed)) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        return unique.count
    }
}

extension Vector {
    /// The bytes this vector decodes, with the mode they are decoded in.
    var decodedInput: (mode: Mode, bytes: [UInt8]) {
        switch check {
        case .message(_, let hex): (.message, hex)
        case .methodCall(_, let hex): (.methodCall, hex)
        case .successEnvelope(_, let hex), .errorEnvelope(_, _, let hex): (.envelope, hex)
        case .malformed(let mode, let hex, _): (mode, hex)
        }
    }

    /// The values this vector holds (for TVN seeds).
    var values: [StandardValue] {
        switch check {
        case .message(let value, _), .successEnvelope(let value, _): [value]
        case .methodCall(let call, _): [call.arguments]
        case .errorEnvelope(let error, _, _): [error.details]
        case .malformed(_, _, .message(let value)?): [value]
        case .malformed(_, _, .methodCall(let call)?): [call.arguments]
        case .malformed(_, _, .envelope(.success(let value))?): [value]
        case .malformed(_, _, .envelope(.error(let error))?): [error.details]
        case .malformed(_, _, nil): []
        }
    }
}

extension SeedSource {
    /// The inputs of every vector in `prefix` files decoded in `mode`.
    func inputs(_ prefix: String, mode: Vector.Mode) throws -> [[UInt8]] {
        try vectors(prefix).map(\.decodedInput).filter { $0.mode == mode }.map(\.bytes)
    }
}
