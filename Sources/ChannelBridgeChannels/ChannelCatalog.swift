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
    ///
    /// - Returns: what the catalog said about the channel before, `nil` when it was not listed.
    @discardableResult
    public func add(_ description: ChannelDescription) -> ChannelDescription? {
        entries.withLock { entries in
            let known = entries[description.name]
            entries[description.name] = known.map { description.filling(from: $0) } ?? description
            return known
        }
    }

    /// Adds what a channel's setup knows on its own (its kind, its codec, a router's method
    /// names) without replacing what was described: a description given first keeps its methods
    /// and summary.
    ///
    /// - Returns: what the catalog said about the channel before, `nil` when it was not listed.
    @discardableResult
    public func addSetUp(_ description: ChannelDescription) -> ChannelDescription? {
        entries.withLock { entries in
            guard let known = entries[description.name] else {
                entries[description.name] = description
                return nil
            }
            var merged = known
            merged.kind = description.kind
            merged.codec = description.codec
            entries[description.name] = merged.filling(from: description)
            return known
        }
    }

    /// The channel named `name`, when it is listed.
    public func channel(named name: String) -> ChannelDescription? {
        entries.withLock { $0[name] }
    }

    /// Puts back what the catalog said about the channel `name` before something was added:
    /// `previous` as it was, or, with `nil`, no entry at all.
    public func restore(_ name: String, to previous: ChannelDescription?) {
        entries.withLock { $0[name] = previous }
    }

    /// The channels, by name.
    public var channels: [ChannelDescription] {
        entries.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }
}
