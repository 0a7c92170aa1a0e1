import ChannelBridgePlatform

/// The channels one session serves, as reflection lists them: filled when channels are set up
/// (a plugin registering, a host installing its own), never on a call's path.
///
/// ```swift
/// let catalog = ChannelCatalog()
/// catalog.add(ChannelDescription(name: "example/greeter", kind: .method, codec: "standard"))
/// catalog.channels.map(\.name)    // ["example/greeter"]
/// ```
public final class ChannelCatalog: Sendable {
    private let entries = LockedValue<[String: ChannelDescription]>([:])

    public init() {}

    /// Adds `description`, or updates the channel of that name: what `description` leaves `nil`
    /// (methods, summary) keeps what was known, so a described channel stays described when its
    /// handler is installed afterwards, and the other way round.
    public func add(_ description: ChannelDescription) {
        entries.withLock { entries in
            entries[description.name] = entries[description.name].map { description.filling(from: $0) } ?? description
        }
    }

    /// Adds what a channel's setup knows on its own (its kind, its codec, a router's method
    /// names) without replacing what was described: a description given first keeps its methods
    /// and summary.
    public func addSetUp(_ description: ChannelDescription) {
        entries.withLock { entries in
            guard let known = entries[description.name] else {
                entries[description.name] = description
                return
            }
            var merged = known
            merged.kind = description.kind
            merged.codec = description.codec
            entries[description.name] = merged.filling(from: description)
        }
    }

    /// The channels, by name.
    public var channels: [ChannelDescription] {
        entries.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }
}
