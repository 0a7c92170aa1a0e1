package import ChannelBridgeCodec
import FoundationEssentials

extension Transcript {
    /// Reads a transcript document (Protocol/transcript.md). A JSON syntax error names its line and
    /// column; a structural error names the field (`interactions[3].reply.error.code`).
    public init(json text: String) throws(TranscriptError) {
        let bytes = Array(text.utf8)
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes, maxDepth: TypedValueNotation.maxJSONDepth + 8)
        } catch {
            throw TranscriptError(
                location: error.offset.map { Self.lineAndColumn(bytes, offset: $0) } ?? "",
                "not JSON: \(error.message)")
        }
        try self.init(document: document)
    }

    /// Reads the transcript in the file at `path`.
    public init(contentsOfFile path: String) throws(TranscriptError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TranscriptError(location: "", "no such file: \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TranscriptError(location: "", "cannot read \(path) (a directory, or permission denied?)")
        }
        try self.init(json: String(decoding: data, as: UTF8.self))
    }

    static func lineAndColumn(_ bytes: [UInt8], offset: Int) -> String {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }

    package init(document: JSONValue) throws(TranscriptError) {
        let root = Field(document, path: "")
        let top = try root.members(allowed: ["transcript", "about", "channels", "given", "interactions"])
        guard let version = top["transcript"] else {
            throw root.error("the member 'transcript' (the format version, 1) is missing")
        }
        guard case .number("1") = version.json else {
            throw version.error("unsupported transcript version \(version.json.text) (this reader knows 1)")
        }
        about = try top["about"]?.string()
        guard let channelsField = top["channels"] else { throw root.error("the member 'channels' is missing") }
        channels = try Self.parseChannels(channelsField)
        given =
            try top["given"].map { (field: Field) throws(TranscriptError) -> ProviderStates in
                try Self.parseGiven(field)
            } ?? ProviderStates()
        guard let interactionsField = top["interactions"] else {
            throw root.error("the member 'interactions' is missing")
        }
        var interactions: [Interaction] = []
        for (index, field) in try interactionsField.array().enumerated() {
            interactions.append(try Self.parseInteraction(field, index: index, channels: channels))
        }
        self.interactions = interactions
    }

    private static func parseChannels(_ field: Field) throws(TranscriptError) -> [String: Channel] {
        guard case .object(let members) = field.json else { throw field.error("expected an object of channel names") }
        var channels: [String: Channel] = [:]
        for member in members where !member.key.hasPrefix("_") {
            let entry = Field(member.value, path: "channels[\(TypedValueNotation.canonicalText(.string(member.key)))]")
            guard !member.key.isEmpty else { throw entry.error("a channel name must not be empty") }
            guard channels[member.key] == nil else { throw entry.error("channel given twice") }
            let found = try entry.members(allowed: ["kind", "codec", "order"])
            guard let kindField = found["kind"] else {
                throw entry.error("the member 'kind' (method, event or message) is missing")
            }
            guard let kind = Channel.Kind(rawValue: try kindField.string()) else {
                throw kindField.error("unknown kind \(kindField.json.text) (expected method, event or message)")
            }
            var codec = Channel.Codec.standard
            if let codecField = found["codec"] {
                guard let named = Channel.Codec(rawValue: try codecField.string()) else {
                    throw codecField.error(
                        "unknown codec \(codecField.json.text) (this reader knows standard and json)")
                }
                codec = named
            }
            var order = Channel.Order.sequence
            if let orderField = found["order"] {
                guard let named = Channel.Order(rawValue: try orderField.string()) else {
                    throw orderField.error("unknown order \(orderField.json.text) (expected sequence or any)")
                }
                order = named
            }
            channels[member.key] = Channel(kind: kind, codec: codec, order: order)
        }
        return channels
    }

    private static func parseGiven(_ field: Field) throws(TranscriptError) -> ProviderStates {
        let found = try field.members(allowed: ["preferences", "inputItems"])
        var states = ProviderStates()
        for entry in try found["preferences"]?.array() ?? [] {
            let members = try entry.members(allowed: ["appGroup", "key", "value"])
            guard let group = members["appGroup"], let key = members["key"], let value = members["value"] else {
                throw entry.error("a preference needs appGroup, key and value")
            }
            states.preferences.append(
                ProviderStates.Preference(
                    appGroup: try group.string(), key: try key.string(),
                    value: try value.value()))
        }
        if let items = found["inputItems"] {
            _ = try items.array()
            states.inputItems = items.json
        }
        return states
    }

    private static let kinds = ["call", "listen", "cancel", "send", "post"]

    private static func parseInteraction(
        _ field: Field, index: Int, channels: [String: Channel]
    ) throws(TranscriptError) -> Interaction {
        let found = try field.members(allowed: [
            "channel", "from", "call", "reply", "listen", "events", "end", "cancel", "send",
            "post", "hex", "replyHex", "given",
        ])
        guard let channelField = found["channel"] else { throw field.error("the member 'channel' is missing") }
        let name = try channelField.string()
        guard let channel = channels[name] else {
            throw channelField.error("the channel '\(name)' is not in 'channels'")
        }
        var from = Side.client
        if let fromField = found["from"] {
            guard let side = Side(rawValue: try fromField.string()) else {
                throw fromField.error("expected \"client\" or \"host\", got \(fromField.json.text)")
            }
            from = side
        }
        let named = kinds.filter { found[$0] != nil }
        guard named.count == 1, let kind = named.first, let body = found[kind] else {
            throw field.error(
                named.isEmpty
                    ? "an interaction needs one of: \(kinds.joined(separator: ", "))"
                    : "an interaction has one of \(kinds.joined(separator: ", ")), got \(named.joined(separator: " and "))"
            )
        }
        func require(_ kinds: Set<Channel.Kind>) throws(TranscriptError) {
            guard kinds.contains(channel.kind) else {
                throw body.error(
                    "'\(kind)' on the \(channel.kind.rawValue) channel '\(name)' (needs a channel of kind \(kinds.map(\.rawValue).sorted().joined(separator: " or ")))"
                )
            }
        }
        func refuse(_ members: [String]) throws(TranscriptError) {
            for member in members where found[member] != nil {
                throw found[member]!.error("'\(member)' does not belong to a '\(kind)' interaction")
            }
        }
        let action: Action
        switch kind {
        case "call":
            try require([.method])
            try refuse(["events", "end"])
            let call = try body.members(allowed: ["method", "args"])
            guard let method = call["method"] else { throw body.error("the member 'method' is missing") }
            guard let replyField = found["reply"] else { throw field.error("a call needs a 'reply'") }
            action = .call(
                method: try method.string(), arguments: try call["args"].map(ValuePattern.parse) ?? .exact(.null),
                reply: try parseReply(replyField))
        case "listen":
            try require([.event])
            var events: [ReplyPattern] = []
            for event in try found["events"]?.array() ?? [] {
                let reply = try parseReply(event)
                if case .notImplemented = reply { throw event.error("an event is a success or an error") }
                events.append(reply)
            }
            action = .stream(
                arguments: try ValuePattern.parse(body),
                reply: try found["reply"].map(parseReply) ?? .success(.exact(.null)),
                events: events, end: try found["end"]?.bool() ?? false)
        case "cancel":
            try require([.event])
            try refuse(["events", "end"])
            action = .cancel(
                arguments: try ValuePattern.parse(body),
                reply: try found["reply"].map(parseReply) ?? .success(.exact(.null)))
        case "send":
            try require([.message])
            try refuse(["events", "end"])
            guard let replyField = found["reply"] else {
                throw field.error("a send needs a 'reply' (null for a null reply)")
            }
            action = .send(message: try ValuePattern.parse(body), reply: try ValuePattern.parse(replyField))
        default:
            try refuse(["events", "end", "reply", "replyHex"])
            action = .post(message: try ValuePattern.parse(body))
        }
        var interaction = Interaction(
            index: index, channel: name, from: from, action: action,
            hex: try found["hex"]?.hex(), replyHex: try found["replyHex"]?.hex())
        if let given = found["given"] {
            let states = try parseGiven(given)
            if states.inputItems != nil {
                throw given.error("input items are the host's from its start: give them in the document's 'given'")
            }
            interaction.given = states.preferences
        }
        try checkBytes(interaction, channel: channel, field: field)
        return interaction
    }

    private static func parseReply(_ field: Field) throws(TranscriptError) -> ReplyPattern {
        let found = try field.members(allowed: ["success", "error", "notImplemented"])
        guard found.count == 1 else {
            throw field.error("a reply is one of {\"success\": V}, {\"error\": {...}}, {\"notImplemented\": true}")
        }
        if let success = found["success"] { return .success(try ValuePattern.parse(success)) }
        if let error = found["error"] {
            let members = try error.members(allowed: ["code", "message", "details"])
            guard let code = members["code"] else { throw error.error("the member 'code' is missing") }
            return .error(
                code: try code.string(), message: try members["message"].map(ValuePattern.parse) ?? .exact(.null),
                details: try members["details"].map(ValuePattern.parse) ?? .exact(.null))
        }
        let flag = found["notImplemented"]!
        guard try flag.bool() else { throw flag.error("notImplemented must be true") }
        return .notImplemented
    }
}

extension Transcript {
    /// §2: raw bytes given beside a value must decode, with the channel's codec, to what the
    /// value matches.
    fileprivate static func checkBytes(
        _ interaction: Interaction, channel: Channel, field: Field
    ) throws(TranscriptError) {
        if let hex = interaction.hex {
            let path = field.path + ".hex"
            do {
                if let method = interaction.method {
                    let call = try channel.methodCodec.decodeMethodCall(hex)
                    guard call.method == method else {
                        throw TranscriptError(
                            location: path, "the bytes carry the method '\(call.method)', not '\(method)'")
                    }
                    if let difference = interaction.arguments.difference(from: call.arguments, at: "args") {
                        throw TranscriptError(
                            location: path, "the bytes do not match the value beside them: \(difference)")
                    }
                } else {
                    let message = try channel.messageCodec.decode(hex)
                    if let difference = interaction.arguments.difference(from: message, at: "message") {
                        throw TranscriptError(
                            location: path, "the bytes do not match the value beside them: \(difference)")
                    }
                }
            } catch let error as CodecError {
                throw TranscriptError(
                    location: path, "the bytes do not decode with the \(channel.codec.rawValue) codec: \(error.message)"
                )
            } catch let error as TranscriptError {
                throw error
            } catch {
                throw TranscriptError(location: path, "\(error)")
            }
        }
        if let replyHex = interaction.replyHex {
            let path = field.path + ".replyHex"
            do {
                switch interaction.action {
                case .call(_, _, let reply), .stream(_, let reply, _, _), .cancel(_, let reply):
                    let envelope = try channel.methodCodec.decodeEnvelope(replyHex)
                    if let difference = reply.difference(from: envelope, at: "reply") {
                        throw TranscriptError(
                            location: path, "the bytes do not match the reply beside them: \(difference)")
                    }
                case .send(_, let reply):
                    let message = try channel.messageCodec.decode(replyHex)
                    if let difference = reply.difference(from: message, at: "reply") {
                        throw TranscriptError(
                            location: path, "the bytes do not match the reply beside them: \(difference)")
                    }
                case .post:
                    break
                }
            } catch let error as CodecError {
                throw TranscriptError(
                    location: path, "the bytes do not decode with the \(channel.codec.rawValue) codec: \(error.message)"
                )
            } catch let error as TranscriptError {
                throw error
            } catch {
                throw TranscriptError(location: path, "\(error)")
            }
        }
    }
}
