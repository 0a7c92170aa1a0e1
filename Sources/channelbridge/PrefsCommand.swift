import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeStore
import Foundation
import ChannelBridgeChannels

/// `channelbridge prefs …`: the app group's shared preferences, through a host's
/// `shared_preference_app_group` plugin or, with `--data-dir`, directly on a store.
enum PrefsCommand: CLICommand {
    static let name = "prefs"
    static let summary = "read, write and watch app-group preferences (through a host or a store)"

    static let help = """
        usage: channelbridge prefs get KEY
               channelbridge prefs set KEY VALUE [--type string|int|double|bool|string-array|bytes]
               channelbridge prefs remove KEY
               channelbridge prefs append KEY VALUE... [--type ...|map|list|json]
               channelbridge prefs take KEY
               channelbridge prefs all
               channelbridge prefs clear
               channelbridge prefs watch [KEY ...]
        options: --app-group G  [--data-dir DIR | --socket PATH [--timeout SECONDS]]  [--json]

        Without --data-dir the commands go through a running host's shared_preference_app_group
        plugin (--app-group selects the group with setAppGroup; without it the host's default).
        With --data-dir they work directly on the store in DIR, with no host (--app-group
        defaults to group.local).

        get prints the value (null when missing); all prints the map; set, remove and clear print
        nothing; watch prints one line per change ({"map":[["key",K],["value",V]]}, V null for a
        removal) until Ctrl-C. set's --type defaults to string; string-array takes a JSON array of
        strings and bytes takes hex. append adds each VALUE (typed as --type says) to the list
        under KEY in one atomic step, creating it (an error when KEY holds something else); take
        prints the value and removes it in the same step (null when missing): appenders and a
        taker in any number of processes never lose or duplicate an item. append also takes
        --type map, list or json: VALUE in lenient typed value notation (plain JSON reads as
        itself), a map, a list, or any value.

        With --data-dir, get, take and all on an app group with nothing ever written to it (no
        directory in the store: a mistyped --app-group or --data-dir) are an error (exit 1) naming
        the groups that are there; through a host, a group it is not entitled to is an error.

        Examples:
          channelbridge prefs get ShareKey --app-group group.demo
          channelbridge prefs set launches 3 --type int
          channelbridge prefs set tags '["a", "b"]' --type string-array --data-dir ~/.local/share/channelbridge
          channelbridge prefs append itemList "first item" "second item"
          channelbridge prefs append itemList '{"text": "a note", "files": []}' --type map
          channelbridge prefs take itemList
          channelbridge prefs watch ShareKey
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ClientContext.valuedOptions.union(["app-group", "data-dir", "type"]),
            flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard let verb = args.positionals.first else {
            throw UsageError("missing get, set, remove, append, take, all, clear or watch")
        }
        let operands = Array(args.positionals.dropFirst())
        func expect(_ count: Int, _ names: String) throws {
            guard operands.count == count else { throw UsageError("prefs \(verb) takes \(names)") }
        }
        let operation: PrefsOperation
        switch verb {
        case "get": try expect(1, "KEY"); operation = .get(operands[0])
        case "set":
            try expect(2, "KEY and VALUE")
            let type = args.value("type") ?? "string"
            if Self.appendOnlyTypes.contains(type) {
                throw UsageError(
                    "--type \(type) goes with append; set takes string, int, double, bool, string-array or bytes",
                    saysWhatToDo: true)
            }
            operation = .set(operands[0], try typedValue(operands[1], type: type))
        case "remove": try expect(1, "KEY"); operation = .remove(operands[0])
        case "append":
            guard operands.count >= 2 else { throw UsageError("prefs append takes KEY and at least one VALUE") }
            let type = args.value("type") ?? "string"
            operation = .append(operands[0], try operands.dropFirst().map { try typedValue($0, type: type) })
        case "take": try expect(1, "KEY"); operation = .take(operands[0])
        case "all": try expect(0, "no operands"); operation = .all
        case "clear": try expect(0, "no operands"); operation = .clear
        case "watch": operation = .watch(operands)
        default:
            throw UsageError("unknown prefs command '\(verb)'; use get, set, remove, append, take, all, clear or watch")
        }
        if verb != "set", verb != "append", args.value("type") != nil {
            throw UsageError("--type goes with set or append")
        }
        if args.flag("json"), ["set", "remove", "append", "clear"].contains(verb) {
            throw UsageError("--json goes with get, take, all and watch (\(verb) prints nothing)")
        }
        let context = try ClientContext(args)
        if let dataDirectory = args.value("data-dir") {
            guard args.value("socket") == nil else { throw UsageError("--data-dir and --socket exclude each other") }
            try await PrefsOnStore(
                context: context, dataDirectory: dataDirectory,
                appGroup: args.value("app-group") ?? "group.local"
            ).run(operation)
        } else {
            try await PrefsOnHost(context: context, appGroup: args.value("app-group")).run(operation)
        }
        return ExitCode.success
    }

    /// The types only `append` takes: a setter of the plugin stores none of them.
    static let appendOnlyTypes: Set<String> = ["map", "list", "json"]

    /// The value `set` stores or `append` adds, typed as `--type` says (bad text is exit status 65).
    static func typedValue(_ text: String, type: String) throws -> StandardValue {
        func bad(_ what: String) -> CommandFailure {
            CommandFailure(ExitCode.dataError, "VALUE '\(text)' is not \(what)")
        }
        switch type {
        case "string": return .string(text)
        case "int":
            guard let int = Int64(text) else { throw bad("an integer") }
            return .int(int)
        case "double":
            guard let double = Double(text) else { throw bad("a number") }
            return .float64(double)
        case "bool":
            guard let flag = Bool(text) else { throw bad("true or false") }
            return .bool(flag)
        case "string-array":
            guard case .array(let elements)? = try? JSONValue.parse(text) else { throw bad("a JSON array of strings") }
            var strings: [StandardValue] = []
            for element in elements {
                guard case .string(let s) = element else { throw bad("a JSON array of strings") }
                strings.append(.string(s))
            }
            return .list(strings)
        case "bytes":
            guard let bytes = try? Hex.decode(text) else { throw bad("hex") }
            return .uint8List(bytes)
        case "map", "list", "json":
            let value: StandardValue
            do {
                value = try TypedValueNotation.parse(text, lenient: true)
            } catch {
                throw CommandFailure(
                    ExitCode.dataError, "VALUE '\(text)' is not valid typed value notation: \(error.message)")
            }
            switch (type, value) {
            case ("map", .map), ("list", .list), ("json", _): return value
            default: throw bad(type == "map" ? "a map ({...})" : "a list ([...])")
            }
        default:
            let known = ["string", "int", "double", "bool", "string-array", "bytes", "map", "list", "json"]
            let hint =
                Suggestion.closest(to: type, in: known).map { "did you mean '\($0)'?" }
                ?? "use string, int, double, bool, string-array or bytes (append: also map, list or json)"
            throw UsageError("unknown --type '\(type)'; \(hint)", saysWhatToDo: true)
        }
    }
}

enum PrefsOperation {
    case get(String)
    case set(String, StandardValue)
    case remove(String)
    case append(String, [StandardValue])
    case take(String)
    case all
    case clear
    case watch([String])

    static func changeLine(key: String, value: StandardValue, _ context: ClientContext) -> String {
        context.text(.map([.init("key", .string(key)), .init("value", value)]))
    }
}

/// The operations through a host's plugin.
struct PrefsOnHost {
    let context: ClientContext
    let appGroup: String?

    func run(_ operation: PrefsOperation) async throws {
        try await context.withClient { client in
            let prefs = try await client.sharedPreferences(appGroup: appGroup)
            switch operation {
            case .get(let key):
                Output.line(context.text(try await prefs.get(key)))
            case .set(let key, let value):
                // The setter whose type matches the value, as the plugin's Dart API would call it.
                let method: String
                switch value {
                case .int32, .int64: method = "setInt"
                case .float64: method = "setDouble"
                case .bool: method = "setBool"
                case .list: method = "setStringArray"
                case .uint8List: method = "setBytes"
                default: method = "setString"
                }
                _ = try await prefs.channel.invokeMethod(
                    method, arguments: ["key": .string(key), "value": value],
                    timeout: prefs.callTimeout)
            case .remove(let key):
                try await prefs.remove(key)
            case .append(let key, let values):
                try await prefs.appendToList(key, values)
            case .take(let key):
                Output.line(context.text(try await prefs.take(key)))
            case .all:
                Output.line(context.text(.map(try await prefs.getAll())))
            case .clear:
                try await prefs.removeAll()
            case .watch(let keys):
                for try await change in prefs.changes(appGroup: appGroup, keys: keys.isEmpty ? nil : keys) {
                    Output.line(PrefsOperation.changeLine(key: change.key, value: change.value, context))
                    Output.flush()
                }
            }
        }
    }
}

/// The same operations directly on a store, with no host.
struct PrefsOnStore {
    let context: ClientContext
    let dataDirectory: String
    let appGroup: String

    func run(_ operation: PrefsOperation) async throws {
        switch operation {
        case .get, .take, .all: try checkGroupExists()
        default: break
        }
        do {
            try await perform(operation)
        } catch {
            throw CommandFailure(ExitCode.failure, "store error \(error.code): \(error.message)")
        }
    }

    /// A group with nothing ever written to it has no directory: reading it is more likely a
    /// mistyped --app-group (or --data-dir) than a question worth the answer null.
    private func checkGroupExists() throws {
        let store = AppGroupStore(dataDirectory: dataDirectory)
        var isDirectory: ObjCBool = false
        guard
            !FileManager.default.fileExists(atPath: store.directory(forGroup: appGroup), isDirectory: &isDirectory)
                || !isDirectory.boolValue
        else { return }
        let groups = ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/app-groups")) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
        let there = groups.isEmpty ? "there is none" : "there: " + groups.joined(separator: ", ")
        throw CommandFailure(
            ExitCode.failure,
            "no app group '\(appGroup)' in \(dataDirectory) (\(there)); "
                + "check --app-group and --data-dir")
    }

    private func perform(_ operation: PrefsOperation) async throws(StoreError) {
        let store = try AppGroupStore(dataDirectory: dataDirectory).group(appGroup)
        switch operation {
        case .get(let key):
            Output.line(context.text(try await store.value(forKey: key) ?? .null))
        case .set(let key, let value):
            try await store.set(value, forKey: key)
        case .remove(let key):
            try await store.remove(key)
        case .append(let key, let values):
            try await store.appendToList(key: key, values: values)
        case .take(let key):
            Output.line(context.text(try await store.take(key: key) ?? .null))
        case .all:
            Output.line(context.text(.map(try await store.allValues().map { .init(.string($0.key), $0.value) })))
        case .clear:
            try await store.removeAll()
        case .watch(let keys):
            let changes = try await store.changes()
            // Every write after this line is reported; scripts (and the demo) wait for it.
            Output.error("channelbridge prefs: watching \(appGroup) in \(dataDirectory)")
            for await change in changes
            where keys.isEmpty || keys.contains(where: { CodeUnitString.equal($0, change.key) }) {
                Output.line(PrefsOperation.changeLine(key: change.key, value: change.value ?? .null, context))
                Output.flush()
            }
        }
    }
}
