public import ChannelBridgeCodec

/// What reflection (`channelbridge/reflection`, Protocol/reflection.md) says about one channel a
/// session serves: its name, kind, codec, methods where known, and a one-line description.
///
/// ```swift
/// registrar.describe(ChannelDescription(
///     name: "example/greeter", kind: .method, codec: "standard",
///     methods: [MethodDescription(name: "greet", summary: "{\"name\": String} -> a greeting")],
///     summary: "Greets by name"))
/// ```
public struct ChannelDescription: Sendable, Equatable {
    /// Flutter's three channel kinds.
    public enum Kind: String, Sendable, Equatable {
        case method, message, event
    }

    public var name: String
    public var kind: Kind
    /// `standard`, `json`, `string`, `binary`, or the codec's type name.
    public var codec: String
    /// The methods, or `nil` when the channel does not say (a handler that is a closure).
    public var methods: [MethodDescription]?
    /// One line; `nil` when the channel has none.
    public var summary: String?

    public init(name: String, kind: Kind, codec: String, methods: [MethodDescription]? = nil, summary: String? = nil) {
        self.name = name
        self.kind = kind
        self.codec = codec
        self.methods = methods
        self.summary = summary
    }

    /// `self` with what it leaves unknown (`methods`, `summary`) taken from `known`.
    func filling(from known: ChannelDescription) -> ChannelDescription {
        var merged = self
        if merged.methods == nil { merged.methods = known.methods }
        if merged.summary == nil { merged.summary = known.summary }
        return merged
    }

    /// The name reflection gives `codec`.
    public static func codecName(_ codec: any MethodCodec) -> String {
        switch codec {
        case is StandardMethodCodec: "standard"
        case is JSONMethodCodec: "json"
        default: String(describing: type(of: codec))
        }
    }
}

/// One method of a method channel, for reflection.
public struct MethodDescription: Sendable, Equatable {
    public var name: String
    /// One line: arguments and result; `nil` when unknown.
    public var summary: String?

    public init(name: String, summary: String? = nil) {
        self.name = name
        self.summary = summary
    }
}

extension ChannelDescription {
    /// The Standard-codec form of Protocol/reflection.md: `{"name", "kind", "codec", "methods", "description"}`.
    public var standardValue: StandardValue {
        let methods: StandardValue =
            self.methods.map { list in
                .list(
                    list.map {
                        ["name": .string($0.name), "description": $0.summary.map(StandardValue.string) ?? .null]
                    })
            } ?? .null
        return [
            "name": .string(name), "kind": .string(kind.rawValue), "codec": .string(codec), "methods": methods,
            "description": summary.map(StandardValue.string) ?? .null,
        ]
    }

    /// Reads the form `standardValue` writes; `nil` when `value` is not one.
    public init?(_ value: StandardValue) {
        guard case .string(let name)? = value["name"], case .string(let kindName)? = value["kind"],
            let kind = Kind(rawValue: kindName), case .string(let codec)? = value["codec"]
        else { return nil }
        var methods: [MethodDescription]?
        if case .list(let list)? = value["methods"] {
            methods = list.compactMap { method in
                guard case .string(let methodName)? = method["name"] else { return nil }
                if case .string(let summary)? = method["description"] {
                    return MethodDescription(name: methodName, summary: summary)
                }
                return MethodDescription(name: methodName)
            }
        }
        var summary: String?
        if case .string(let text)? = value["description"] { summary = text }
        self.init(name: name, kind: kind, codec: codec, methods: methods, summary: summary)
    }
}
