import ChannelBridgeChannels

extension ExtensionChannelHandler {
    /// The extension channel as reflection lists it: the methods of Protocol/extension-host.md §3.
    static func description(channel: String) -> ChannelDescription {
        ChannelDescription(
            name: channel, kind: .method, codec: "standard",
            methods: [
                MethodDescription(name: "getInputItems", summary: "-> List of the request's input items"),
                MethodDescription(
                    name: "exit", summary: "null or a List of returned items -> null; completes the request"),
                MethodDescription(name: "completeRequest", summary: "as exit"),
                MethodDescription(
                    name: "cancel",
                    summary: #"{"code": String, "message"?: String, "details"?} -> null; cancels the request"#),
                MethodDescription(
                    name: "openURL", summary: #"{"url": String} -> bool: whether the host opened it (--open-url)"#),
                MethodDescription(
                    name: "getAppGroupContainer", summary: #"{"appGroup": String} -> the group's container directory"#),
            ], summary: "The extension request: input items, exit, cancel, openURL, app group containers")
    }
}
