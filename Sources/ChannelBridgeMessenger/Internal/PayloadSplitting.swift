import ChannelBridgePlatform

/// Where a large payload's last part starts, when that part is one run of bytes its consumer can
/// adopt as an array of its own (a Standard-codec `Uint8List` that ends a method call or a success
/// envelope): given the payload's first bytes `prefix` and its length. `nil` keeps the payload in
/// one array. Provided by the channel layer, which knows the codec; the messenger knows none.
package typealias PayloadSplitter = @Sendable (_ prefix: UnsafeRawBufferPointer, _ payloadLength: Int) -> Int?

/// The splitters of one connection: REQUEST payloads on the channels whose
/// handler adopts a last part, and REPLY payloads when the channel layer's calls do.
/// Asked by the frame decoder once per large frame, under a lock of its own that nothing is
/// taken inside. Bounded by the channels with a handler installed.
package final class PayloadSplitting: Sendable {
    private struct Table {
        var requests: [String: PayloadSplitter] = [:]
        var replies: PayloadSplitter?
    }

    private let table = LockedValue(Table())

    package init() {}

    package func setRequestSplitter(_ splitter: PayloadSplitter?, onChannel channel: String) {
        table.withLock { table in
            if let splitter {
                table.requests[channel] = splitter
            } else if !table.requests.isEmpty {
                table.requests[channel] = nil
            }
        }
    }

    package func setReplySplitter(_ splitter: @escaping PayloadSplitter) {
        table.withLock { $0.replies = splitter }
    }

    /// Whether REPLY payloads may be split.
    package var splitsReplies: Bool { table.withLock { $0.replies != nil } }

    /// Whether REQUEST payloads on `channel` may be split.
    package func splitsRequests(onChannel channel: String) -> Bool {
        table.withLock { $0.requests[channel] != nil }
    }

    /// The splitter for a frame with `head`, if its payload may be split.
    func splitter(for head: PayloadHead) -> PayloadSplitter? {
        switch head {
        case .request(_, let channel, false): table.withLock { $0.requests[channel] }
        case .reply(_, 0): table.withLock { $0.replies }
        default: nil
        }
    }
}
