extension Transcript {
    /// The channels, sorted by name (a stable order for installing handlers and for reports).
    package var channelList: [(name: String, channel: Channel)] {
        channels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension Transcript {
    /// Why a side answering from this transcript could not send one of its replies, events or
    /// posts (a matcher without `example`, §4), or `nil` when it can send them all.
    package var unsendableReply: String? {
        for interaction in interactions where interaction.from == .client {
            let where_ = "interactions[\(interaction.index)]"
            switch interaction.action {
            case .call(_, _, let reply), .cancel(_, let reply):
                if interaction.replyHex == nil, !reply.canBeSent {
                    return "\(where_).reply: a matcher without an example cannot be sent"
                }
            case .stream(_, let reply, let events, _):
                if interaction.replyHex == nil, !reply.canBeSent {
                    return "\(where_).reply: a matcher without an example cannot be sent"
                }
                if let index = events.firstIndex(where: { !$0.canBeSent }) {
                    return "\(where_).events[\(index)]: a matcher without an example cannot be sent"
                }
            case .send(_, let reply):
                if interaction.replyHex == nil, reply.example == nil {
                    return "\(where_).reply: a matcher without an example cannot be sent"
                }
            case .post:
                break
            }
        }
        for interaction in interactions
        where interaction.from == .host && interaction.hex == nil && interaction.arguments.example == nil {
            return "interactions[\(interaction.index)]: a matcher without an example cannot be sent"
        }
        return nil
    }
}
