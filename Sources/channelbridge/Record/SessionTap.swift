import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// One proxied session's frames turned into transcript interactions (Protocol/transcript.md §2), on
/// the recording writer's thread: a client's REQUEST with the host's REPLY is a call, a listen, a
/// cancel or a send; MESSAGEs are a stream's events, or one-way messages.
///
/// A stream's interaction is complete only when the stream ends (its null MESSAGE, the client's
/// `cancel`, or the session's end), and a verifier replays in document order, so what the session
/// completes after a stream opened is held back behind it, in order. Bounds: at most
/// `maxHeld` interactions held and `maxEvents` events per stream; past either, the oldest open
/// stream is written as it is (`end: false`) and its further events are dropped and counted.
final class SessionTap: Sendable {
    static let maxHeld = 10_000
    static let maxEvents = 10_000
    static let maxPending = 65_536

    private struct Stream {
        var channel: String
        /// The interaction's text without its closing brace: the events and the end follow.
        var head: [UInt8]
        var events: [[UInt8]] = []
    }

    /// An interaction's line, or the place of a stream not yet ended.
    private enum Entry {
        case done([UInt8])
        case stream(Int)
    }

    private struct Pending {
        var channel: String
        var payload: [UInt8]?
    }

    /// What a client's request was.
    private enum Decoded {
        case call(MethodCall, codec: String)
        case send(StandardValue, codec: String)
    }

    private struct State {
        var pending: [UInt32: Pending] = [:]
        var entries: [Entry] = []
        var streams: [Int: Stream] = [:]
        var openStream: [String: Int] = [:]
        var nextStream = 0
        var skipped = 0
        var droppedEvents = 0
    }

    private let file: TranscriptFile
    let values: RecordedValue
    let redactedChannels: Set<String>
    private let state = LockedValue(State())

    init(file: TranscriptFile, values: RecordedValue, redactedChannels: Set<String>) {
        self.file = file
        self.values = values
        self.redactedChannels = redactedChannels
    }

    /// Interactions that could not be recorded (undecodable payloads, handler failures, calls the
    /// host began) and events dropped past the bounds.
    var skipped: Int { state.withLock { $0.skipped + $0.droppedEvents } }

    /// A frame the client sent. Frames come from the recording writer's thread in the order in
    /// which they passed the proxy, so a reply always finds its request: only the frame is kept
    /// here, decoding waits for the reply.
    func fromClient(_ frame: Frame) {
        switch frame {
        case .request(let id, let channel, let payload):
            state.withLock { state in
                guard state.pending.count < Self.maxPending else {
                    state.skipped += 1
                    return
                }
                state.pending[id] = Pending(channel: channel, payload: payload)
            }
        case .message(let channel, let payload):
            guard let value = try? StandardMessageCodec().decode(payload ?? []) else {
                state.withLock { $0.skipped += 1 }
                return
            }
            if file.kind(of: channel) == nil { file.noteChannel(channel, kind: "message", codec: "standard") }
            var line = InteractionText(channel: channel)
            let (json, redacted) = shown(value, on: channel)
            line.add("post", json: json)
            if !redacted, let payload { line.add("hex", hex: payload) }
            complete(line.closed())
        case .reply:
            // A reply to a call the host began: such calls are not recorded.
            break
        default:
            break
        }
    }

    /// A frame the host sent.
    func fromHost(_ frame: Frame) {
        switch frame {
        case .reply(let id, let result):
            guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            record(pending, result)
        case .message(let channel, let payload):
            var ready: [[UInt8]] = []
            let isEvent = state.withLock { state -> Bool in
                guard let index = state.openStream[channel] else { return false }
                guard let payload else {
                    ready = close(index, end: true, &state)
                    return true
                }
                guard let event = eventText(payload, on: channel) else {
                    state.droppedEvents += 1
                    return true
                }
                state.streams[index]!.events.append(event)
                if state.streams[index]!.events.count >= Self.maxEvents { ready = close(index, end: false, &state) }
                return true
            }
            file.write(ready)
            if isEvent { return }
            guard let value = try? StandardMessageCodec().decode(payload ?? []) else {
                state.withLock { $0.skipped += 1 }
                return
            }
            if file.kind(of: channel) == nil { file.noteChannel(channel, kind: "message", codec: "standard") }
            let (json, redacted) = shown(value, on: channel)
            var line = InteractionText(channel: channel)
            line.add("from", string: "host")
            line.add("post", json: json)
            if !redacted, let payload { line.add("hex", hex: payload) }
            complete(line.closed())
        case .request:
            // A call the host began: not recorded (a transcript made by record holds the client's side).
            state.withLock { $0.skipped += 1 }
        default:
            break
        }
    }

    /// The session ended: open streams are written as they are, and everything held behind them.
    func end() {
        var ready: [[UInt8]] = []
        state.withLock { state in
            for index in state.streams.keys.sorted() {
                ready += close(index, end: false, &state)
            }
            state.skipped += state.pending.count
            state.pending = [:]
        }
        file.write(ready)
        // Nothing reaches an ended tap: its count moves to the file, and nobody keeps the tap.
        file.noteSkipped(skipped)
    }

    private func decode(_ payload: [UInt8]?) -> Decoded? {
        guard let payload else { return .send(.null, codec: "standard") }
        if let call = try? StandardMethodCodec().decodeMethodCall(payload) { return .call(call, codec: "standard") }
        if let value = try? StandardMessageCodec().decode(payload) { return .send(value, codec: "standard") }
        if let call = try? JSONMethodCodec().decodeMethodCall(payload) { return .call(call, codec: "json") }
        if let value = try? JSONMessageCodec().decode(payload) { return .send(value, codec: "json") }
        return nil
    }

    private func codec(of channel: String, _ decoded: Decoded) -> any MethodCodec {
        if case .call(_, "json") = decoded { return JSONMethodCodec() }
        return StandardMethodCodec()
    }

    /// A request and its reply as an interaction. The members are, in order: the channel, what
    /// the client sent (`call`, `listen`, `cancel` or `send`), its `hex`, the `reply` and its
    /// `replyHex`; the bytes only when nothing in the interaction was redacted.
    private func record(_ pending: Pending, _ result: Frame.Reply) {
        guard let decoded = decode(pending.payload) else {
            state.withLock { $0.skipped += 1 }
            return
        }
        switch decoded {
        case .call(let call, let codec):
            let kind =
                file.kind(of: pending.channel)
                ?? (call.method == "listen" || call.method == "cancel" ? "event" : "method")
            file.noteChannel(pending.channel, kind: kind, codec: codec)
        case .send(_, let codec):
            file.noteChannel(pending.channel, kind: "message", codec: codec)
        }
        var line = InteractionText(channel: pending.channel)
        var redacted = false
        var stream: Bool = false
        switch decoded {
        case .call(let call, _):
            let (arguments, hidden) = shown(call.arguments, on: pending.channel)
            redacted = hidden
            let isEvent = file.kind(of: pending.channel) == "event"
            if isEvent, call.method == "listen" {
                line.add("listen", json: arguments)
                stream = true
            } else if isEvent, call.method == "cancel" {
                line.add("cancel", json: arguments)
                // The stream ends with its cancel: written, with what it delivered, before the cancel.
                let ready = state.withLock { state -> [[UInt8]] in
                    guard let stream = state.openStream[pending.channel] else { return [] }
                    return close(stream, end: false, &state)
                }
                file.write(ready)
            } else {
                line.add("call", json: InteractionText.call(method: call.method, arguments: arguments))
            }
            switch result {
            case .bytes(let bytes):
                guard let envelope = try? codec(of: pending.channel, decoded).decodeEnvelope(bytes) else {
                    state.withLock { $0.skipped += 1 }
                    return
                }
                if case .error = envelope { stream = false }
                let reply = envelopeText(envelope, on: pending.channel, redacted: &redacted)
                if !redacted, let payload = pending.payload { line.add("hex", hex: payload) }
                line.add("reply", json: reply)
                if !redacted { line.add("replyHex", hex: bytes) }
            case .null:
                stream = false
                if !redacted, let payload = pending.payload { line.add("hex", hex: payload) }
                line.add("reply", json: InteractionText.notImplemented)
            case .failure:
                state.withLock { $0.skipped += 1 }
                return
            }
        case .send(let value, let codecName):
            let (message, hidden) = shown(value, on: pending.channel)
            redacted = hidden
            line.add("send", json: message)
            let messageCodec: any MessageCodec<StandardValue> =
                codecName == "json" ? JSONMessageCodec() : StandardMessageCodec()
            switch result {
            case .bytes(let bytes):
                guard let reply = try? messageCodec.decode(bytes) else {
                    state.withLock { $0.skipped += 1 }
                    return
                }
                let (json, hiddenReply) = shown(reply, on: pending.channel)
                redacted = redacted || hiddenReply
                if !redacted, let payload = pending.payload { line.add("hex", hex: payload) }
                line.add("reply", json: json)
                if !redacted { line.add("replyHex", hex: bytes) }
            case .null:
                line.add("reply", json: Array("null".utf8))
            case .failure:
                state.withLock { $0.skipped += 1 }
                return
            }
        }
        if stream {
            var ready: [[UInt8]] = []
            let head = line.bytes
            state.withLock { state in
                // A second listen on a channel ends the first stream (wire protocol §6).
                if let previous = state.openStream[pending.channel] { ready = close(previous, end: false, &state) }
                let index = state.nextStream
                state.nextStream += 1
                state.streams[index] = Stream(channel: pending.channel, head: head)
                state.openStream[pending.channel] = index
                state.entries.append(.stream(index))
            }
            file.write(ready)
        } else {
            complete(line.closed())
        }
    }

    /// A finished interaction: written at once, or held behind an open stream.
    private func complete(_ interaction: [UInt8]) {
        var ready: [[UInt8]] = []
        state.withLock { state in
            if state.entries.isEmpty {
                ready = [interaction]
                return
            }
            state.entries.append(.done(interaction))
            if state.entries.count > Self.maxHeld, case .stream(let oldest)? = state.entries.first {
                ready = close(oldest, end: false, &state)
            }
        }
        file.write(ready)
    }

    /// Ends stream `index` and returns the interactions now ready, in order.
    private func close(_ index: Int, end: Bool, _ state: inout State) -> [[UInt8]] {
        guard let stream = state.streams.removeValue(forKey: index) else { return [] }
        if state.openStream[stream.channel] == index { state.openStream[stream.channel] = nil }
        var text = stream.head
        text.append(contentsOf: #","events":["#.utf8)
        for (position, event) in stream.events.enumerated() {
            if position > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: event)
        }
        text.append(contentsOf: (end ? #"],"end":true}"# : #"],"end":false}"#).utf8)
        if let position = state.entries.firstIndex(where: {
            if case .stream(index) = $0 { return true } else { return false }
        }) {
            state.entries[position] = .done(text)
        }
        var ready: [[UInt8]] = []
        while case .done(let interaction)? = state.entries.first {
            ready.append(interaction)
            state.entries.removeFirst()
        }
        return ready
    }
}
