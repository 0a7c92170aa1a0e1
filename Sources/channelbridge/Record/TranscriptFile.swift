import ChannelBridgeCodec
import ChannelBridgePlatform
import Foundation

/// The transcript being written, streamed to disk: the head at once, each interaction as one
/// line when it is complete, the channels and the end when recording ends. Only the channel
/// table and the lines not yet written are held in memory.
///
/// Lines are written by whichever thread finds no write under way, outside the lock; others queue
/// theirs behind it, so lines keep the order in which they were handed over.
final class TranscriptFile: Sendable {
    private struct State {
        var queue: [String] = []
        var writing = false
        var written = 0
        var channels: [String: (kind: String, codec: String)] = [:]
        var channelOrder: [String] = []
        var finished = false
    }

    private let handle: FileHandle
    private let state = LockedValue(State())

    init(path: String, about: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw CommandFailure(ExitCode.failure, "cannot create the transcript file \(path)")
        }
        self.handle = handle
        let head = JSONValue.object([
            JSONValue.Member("transcript", .number("1")), JSONValue.Member("about", .string(about)),
        ]).text
        handle.write(Data((String(head.dropLast()) + ",\n \"interactions\": [\n").utf8))
    }

    /// Notes a channel's kind and codec the first time it is seen; later sightings keep the first.
    func noteChannel(_ name: String, kind: String, codec: String) {
        state.withLock { state in
            guard state.channels[name] == nil else { return }
            state.channels[name] = (kind, codec)
            state.channelOrder.append(name)
        }
    }

    /// The kind already noted for `name`.
    func kind(of name: String) -> String? { state.withLock { $0.channels[name]?.kind } }

    /// Writes interactions, in order.
    func write(_ interactions: [JSONValue]) {
        guard !interactions.isEmpty else { return }
        let lines = interactions.map(\.text)
        var batch = state.withLock { state -> [String]? in
            guard !state.finished else { return nil }
            state.queue += lines
            guard !state.writing else { return nil }
            state.writing = true
            defer { state.queue = [] }
            return state.queue
        }
        while let lines = batch {
            writeLines(lines)
            batch = state.withLock { state -> [String]? in
                guard !state.queue.isEmpty else {
                    state.writing = false
                    return nil
                }
                defer { state.queue = [] }
                return state.queue
            }
        }
    }

    private func writeLines(_ lines: [String]) {
        let first = state.withLock { state -> Bool in
            defer { state.written += lines.count }
            return state.written == 0
        }
        var text = ""
        for (offset, line) in lines.enumerated() {
            text += (first && offset == 0 ? "  " : ",\n  ") + line
        }
        handle.write(Data(text.utf8))
    }

    /// How many interactions were written.
    var count: Int { state.withLock { $0.written + $0.queue.count } }

    /// Writes the channel table and closes the document; after this, nothing more is written.
    func finish() {
        let channels = state.withLock { state -> [(String, String, String)] in
            state.finished = true
            return state.channelOrder.map { ($0, state.channels[$0]!.kind, state.channels[$0]!.codec) }
        }
        let table = JSONValue.object(
            channels.map { name, kind, codec in
                JSONValue.Member(
                    name, .object([JSONValue.Member("kind", .string(kind)), JSONValue.Member("codec", .string(codec))]))
            })
        handle.write(Data("\n ],\n \"channels\": \(table.text)\n}\n".utf8))
        try? handle.synchronize()
        try? handle.close()
    }
}
