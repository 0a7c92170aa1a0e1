import ChannelBridgeTestSupport
import Testing

/// `channelbridge list|describe` and `call` on a channel the host does not serve, against a real
/// `extension-host` child: exact stdout, stderr and exit statuses.
@Suite struct ReflectionCommandTests {
    static let extensionMethods =
        "  methods: getInputItems, exit, completeRequest, cancel, openURL, getAppGroupContainer\n"
    static let preferenceMethods =
        "  methods: setAppGroup, get, getBool, getInt, getDouble, getString, getStringArray, getBytes, "
        + "getAll, setBool, setInt, setDouble, setString, setStringArray, setBytes, remove, removeAll, appendToList, take\n"

    /// Every channel of Protocol/extension-host.md §3 to §5 (echo with --echo), with its methods.
    static let stockList = """
        channelbridge/echo (message channel, binary codec): Answers every message with the bytes it carried (--echo)
        channelbridge/extension (method channel, standard codec): The extension request: input items, exit, cancel, openURL, app group containers

        """ + extensionMethods + """
            channelbridge/reflection (method channel, standard codec): The channels this session serves (channelbridge list)
              methods: listChannels
            shared_preference_app_group (method channel, standard codec): An app group's preferences, shared with every process of the store

            """ + preferenceMethods + """
            shared_preference_app_group/changes (event channel, standard codec): Every write to an app group: listen {"appGroup"?, "keys"?}; events {"key", "value"}

            """

    @Test func listNamesEveryChannelOfTheStockHostWithItsMethods() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--echo"])
            defer { Task { _ = await live.stop() } }
            let outcome = try await live.channelbridge(["list"])
            #expect(outcome.stderr == "")
            #expect(outcome.status == 0)
            #expect(outcome.stdout == Self.stockList)
        }
    }

    @Test func listOfOneChannelAndDescribePrintItsMethodsWithArgumentsAndResults() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let extensionChannel = try await live.channelbridge(["list", "channelbridge/extension"])
            #expect(extensionChannel.status == 0)
            #expect(
                extensionChannel.stdout == """
                    channelbridge/extension (method channel, standard codec): The extension request: input items, exit, cancel, openURL, app group containers
                      getInputItems: -> List of the request's input items
                      exit: null or a List of returned items -> null; completes the request
                      completeRequest: as exit
                      cancel: {"code": String, "message"?: String, "details"?} -> null; cancels the request
                      openURL: {"url": String} -> bool: whether the host opened it (--open-url)
                      getAppGroupContainer: {"appGroup": String} -> the group's container directory

                    """)
            let method = try await live.channelbridge(["describe", "shared_preference_app_group", "getInt"])
            #expect(method.status == 0)
            #expect(method.stderr == "")
            #expect(
                method.stdout == """
                    shared_preference_app_group (method channel, standard codec): An app group's preferences, shared with every process of the store
                      getInt: {"key": String} -> int or null

                    """)
            let json = try await live.channelbridge(["describe", "shared_preference_app_group", "take", "--json"])
            #expect(
                json.stdout
                    == #"{"channel":"shared_preference_app_group","method":"take","description":"{\"key\": String, \"requestId\"?: String} -> the value, removed atomically, or null"}"#
                    + "\n")
        }
    }

    @Test func aMistypedChannelOrMethodNamesTheNearestOne() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let method = try await live.channelbridge(["describe", "shared_preference_app_group", "getInts"])
            #expect(method.status == 1)
            #expect(method.stdout == "")
            #expect(
                method.stderr
                    == "channelbridge describe: no method 'getInts' on channel 'shared_preference_app_group'; did you mean 'getInt'?\n"
            )
            let channel = try await live.channelbridge(["list", "channelbridge/extensions"])
            #expect(channel.status == 1)
            #expect(
                channel.stderr
                    == "channelbridge list: no channel 'channelbridge/extensions' on this host; did you mean 'channelbridge/extension'?\n"
            )
            let far = try await live.channelbridge(["describe", "nothing/here", "get"])
            #expect(far.status == 1)
            #expect(
                far.stderr
                    == "channelbridge describe: no channel 'nothing/here' on this host; run 'channelbridge list' for the channels it serves\n"
            )
        }
    }

    /// The host still answers null on a channel it does not serve, and on a method a channel does
    /// not have (Flutter's semantics); the CLI asks reflection and says which is missing, with the
    /// nearest name and the exit status of not implemented.
    @Test func callOnAChannelOrMethodTheHostDoesNotServeSaysSoWithTheNearestName() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start()
            defer { Task { _ = await live.stop() } }
            let near = try await live.channelbridge([
                "call", "shared_preferences_app_group", "getInt", #"{"key": "n"}"#,
            ])
            #expect(near.status == 1)
            #expect(near.stdout == "")
            #expect(
                near.stderr
                    == "channelbridge call: no channel 'shared_preferences_app_group' on this host; did you mean 'shared_preference_app_group'?\n"
            )
            let far = try await live.channelbridge(["call", "no/such/channel", "get"])
            #expect(far.status == 1)
            #expect(
                far.stderr
                    == "channelbridge call: no channel 'no/such/channel' on this host; run 'channelbridge list' for the channels it serves\n"
            )
            // A served channel that lists its methods, without this one: the nearest method.
            let method = try await live.channelbridge([
                "call", "shared_preference_app_group", "getInts", #"{"key": "n"}"#,
            ])
            #expect(method.status == 1)
            #expect(method.stdout == "")
            #expect(
                method.stderr
                    == "channelbridge call: no method 'getInts' on channel 'shared_preference_app_group'; did you mean 'getInt'?\n"
            )
            let farMethod = try await live.channelbridge(["call", "shared_preference_app_group", "teleport"])
            #expect(farMethod.status == 1)
            #expect(
                farMethod.stderr
                    == "channelbridge call: no method 'teleport' on channel 'shared_preference_app_group'; "
                    + "run 'channelbridge list shared_preference_app_group' for its methods\n")
        }
    }

    /// `send` and `listen` get a null reply (or a refused `listen`) from a channel nobody owns, as
    /// `call` does; they ask reflection too.
    @Test func sendAndListenOnAChannelTheHostDoesNotServeSayItWithTheNearestName() async throws {
        try await withHangGuard {
            let live = try await LiveHost.start(["--echo"])
            defer { Task { _ = await live.stop() } }
            let send = try await live.channelbridge(["send", "channelbridge/ecko", "00", "--codec", "binary"])
            #expect(send.status == 1)
            #expect(send.stdout == "")
            #expect(
                send.stderr
                    == "channelbridge send: no channel 'channelbridge/ecko' on this host; did you mean 'channelbridge/echo'?\n"
            )
            let farSend = try await live.channelbridge(["send", "no/handler", "1"])
            #expect(farSend.status == 1)
            #expect(
                farSend.stderr
                    == "channelbridge send: no channel 'no/handler' on this host; run 'channelbridge list' for the channels it serves\n"
            )
            let listen = try await live.channelbridge([
                "listen", "shared_preference_app_group/change", #"{"appGroup": "group.local"}"#,
            ])
            #expect(listen.status == 1)
            #expect(listen.stdout == "")
            #expect(
                listen.stderr == "channelbridge listen: no channel 'shared_preference_app_group/change' on this host; "
                    + "did you mean 'shared_preference_app_group/changes'?\n")
            let farListen = try await live.channelbridge(["listen", "no/events"])
            #expect(farListen.status == 1)
            #expect(
                farListen.stderr
                    == "channelbridge listen: no channel 'no/events' on this host; run 'channelbridge list' for the channels it serves\n"
            )
        }
    }
}
