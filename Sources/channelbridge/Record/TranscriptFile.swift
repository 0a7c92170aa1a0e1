import ChannelBridgeCodec
import ChannelBridgePlatform
import Foundation

/// The transcript being written, streamed to disk: the head at once, each interaction as one
/// line when it is complete, the channels and the end when recording ends. Only the channel
/// table and the lines not yet flushed are held in memory.
///
/// Lines are written by the recording writer's thread alone: `write` adds them to a buffer and
/// `flush` writes the buffer with one write, so lines keep the order in which they were handed
/// over.
final class TranscriptFile: Sendable {
    private struct State {
        /// Lines not yet flushed, with their separators.
        var buffer: [UInt8] = []
        var written = 0
        var channels: [String: (kind: String, codec: String)] = [:]
        var channelOrder: [String] = []
        var finished = false
        /// What the sessions that ended could not record (`SessionTap.skipped`).
        var skipped = 0
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

    /// Adds interactions (each one line of JSON text) to the lines `flush` writes, in order.
    func write(_ interactions: [[UInt8]]) {
        guard !interactions.isEmpty else { return }
        state.withLock { state in
            guard !state.finished else { return }
            for line in interactions {
                state.buffer.append(contentsOf: (state.written == 0 ? "  " : ",\n  ").utf8)
                state.buffer.append(contentsOf: line)
                state.written += 1
            }
        }
    }

    /// Writes the lines added since the last flush, with one write.
    func flush() {
        let bytes = state.withLock { state -> [UInt8] in
            defer { state.buffer.removeAll(keepingCapacity: true) }
            return state.buffer
        }
        guard !bytes.isEmpty else { return }
        handle.write(Data(bytes))
    }

    /// How many interactions were written.
    var count: Int { state.withLock { $0.written } }

    /// Adds what an ended session could not record, so that its tap need not be kept.
    func noteSkipped(_ count: Int) {
        state.withLock { $0.skipped += count }
    }

    /// What the sessions that ended could not record.
    var skipped: Int { state.withLock { $0.skipped } }

    /// Writes the channel table and closes the document; after this, nothing more is written.
    func finish() {
        flush()
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
