package import ChannelBridgeCodec

/// What the host prints as its last line on standard output when the request ends: one compact
/// JSON object.
///
/// ```
/// {"outcome":"completed","returnedItems":[{"map":[["ok",true]]}],"error":null,"openedURLs":[{"url":"https://example.com","opened":false}]}
/// ```
///
/// `returnedItems` is the canonical TVN of what `exit` was given (`null` when nothing); `error` is
/// `null` when completed, else `{"code","message","details"}` (details in TVN). A last member,
/// `shutdownDeadlinePassed`, is present only when the shutdown ran out of time.
public struct CompletionRecord: Sendable, Hashable {
    /// How the request ended; the host's exit status is this outcome's.
    public package(set) var outcome: HostOutcome
    package var returnedItems: StandardValue?
    package var error: MethodError?
    package var openedURLs: [OpenedURL]
    /// Set when the shutdown deadline passed with work unfinished; the outcome (and so the exit
    /// status) is still how the request ended.
    package var shutdownDeadlinePassed: ShutdownDeadlinePassed?

    package init(
        outcome: HostOutcome, returnedItems: StandardValue? = nil, error: MethodError? = nil,
        openedURLs: [OpenedURL] = [], shutdownDeadlinePassed: ShutdownDeadlinePassed? = nil
    ) {
        self.outcome = outcome
        self.returnedItems = returnedItems
        self.error = error
        self.openedURLs = openedURLs
        self.shutdownDeadlinePassed = shutdownDeadlinePassed
    }

    package var json: JSONValue {
        let errorJSON: JSONValue =
            error.map { error in
                .object([
                    .init("code", .string(error.code)),
                    .init("message", error.message.map(JSONValue.string) ?? .null),
                    .init("details", TypedValueNotation.json(for: error.details)),
                ])
            } ?? .null
        var members: [JSONValue.Member] = [
            .init("outcome", .string(outcome.name)),
            .init("returnedItems", returnedItems.map(TypedValueNotation.json(for:)) ?? .null),
            .init("error", errorJSON),
            .init(
                "openedURLs",
                .array(
                    openedURLs.map { url in
                        .object([.init("url", .string(url.url)), .init("opened", .bool(url.opened))])
                    })),
        ]
        if let shutdownDeadlinePassed { members.append(.init("shutdownDeadlinePassed", shutdownDeadlinePassed.json)) }
        return .object(members)
    }

    /// The record as one line of compact JSON, without the line break: the line `run()` prints
    /// last on standard output (`extension-host` does too).
    public var jsonLine: String { json.text }
}

/// One `openURL` call: the URL as given and what the host answered.
package struct OpenedURL: Sendable, Hashable {
    package var url: String
    package var opened: Bool

    package init(url: String, opened: Bool) {
        self.url = url
        self.opened = opened
    }
}
