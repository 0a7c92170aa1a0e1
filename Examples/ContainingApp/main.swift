// A containing app and its share extension sharing an app group's preferences.
//
// The share extension appends each shared item to a list under one key; the containing app
// imports the list and removes it. Done with a plain read, then a write of an empty list, an item
// appended between the two is lost (the pattern in the articles this project grew from). Here the
// extension appends with `appendToList` (one atomic read-modify-write under the group's lock) and
// the app imports with `take` (read and remove in one step), so every item is imported exactly
// once. An extension running in a host makes the same two calls on the
// `shared_preference_app_group` channel (`SharedPreferencesClient.appendToList` and `take`, or
// `channelbridge prefs append` and `prefs take`).
//
//   containing-app-example share ITEM [--data-dir DIR] [--app-group G]   (the extension's side)
//   containing-app-example import [--data-dir DIR] [--app-group G]       (the app's side: one item per line)
//
// The options are the CLI's and the host's: --data-dir defaults to the host's store
// ($XDG_DATA_HOME/channelbridge, else ~/.local/share/channelbridge), --app-group to group.local.

import ChannelBridge
import Foundation

let itemListKey = "itemList"
let usage = "usage: containing-app-example share ITEM|import|shared-text [--data-dir DIR] [--app-group G]\n"

let help =
    usage + """

        The containing app's side of a share extension, on the app group's store directly (no host):
        share appends ITEM to the list under "itemList"; import takes the whole list and prints one
        item per line, so items appended meanwhile are never lost or imported twice. shared-text is
        seed 001's containing app: it prints its list with the text its action extension saved under
        "text" in UserDefaults(suiteName: "group.com.example.helloExtension") appended, and removes it.
          --data-dir DIR   the store (default: the host's, $XDG_DATA_HOME/channelbridge or ~/.local/share/channelbridge)
          --app-group G    the app group (default group.local)
        """

if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    print(help)
    exit(0)
}

func fail(_ message: String, status: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    exit(status)
}

// Operands, and the two options with their values.
var operands: [String] = []
var options: [String: String] = [:]
var remaining = CommandLine.arguments.dropFirst()[...]
while let argument = remaining.popFirst() {
    guard argument == "--data-dir" || argument == "--app-group" else {
        if argument.hasPrefix("--") { fail("unknown option \(argument)\n" + usage) }
        operands.append(argument)
        continue
    }
    guard let value = remaining.popFirst() else { fail("\(argument) needs a value\n" + usage) }
    options[String(argument.dropFirst(2))] = value
}

let dataDirectory = options["data-dir"] ?? AppGroupStore.defaultDataDirectory()
let store: AppGroupPreferences
do {
    store = try AppGroupStore(dataDirectory: dataDirectory).group(options["app-group"] ?? "group.local")
} catch {
    fail("containing-app-example: \(error.message)")
}

do {
    switch operands.first {
    case "share":
        guard operands.count == 2 else { fail(usage) }
        let item = operands[1]
        // Appending under the lock: a concurrent import either sees the item or leaves it for the next.
        try await store.appendToList(key: itemListKey, values: [.string(item)])
    case "shared-text":
        // Seed 001's containing app: the text its action extension saved in the app group's
        // UserDefaults, read through Foundation's API (`SharedData.swift`) in this process's sandbox.
        guard operands.count == 1 else { fail(usage) }
        AppSandbox.install(
            try AppSandbox(
                bundleIdentifier: "com.example.helloExtension", entitledAppGroups: ["group.com.example.helloExtension"],
                groups: AppGroupStore(dataDirectory: dataDirectory)))
        // On the main thread, which may block (UserDefaults reads and writes the store in place).
        for text in SharedData.sharedUserInfo.sharedTexts { print(text) }
    case "import":
        guard operands.count == 1 else { fail(usage) }
        let imported = try await store.take(key: itemListKey)?.listValue ?? []
        for item in imported {
            print(item.stringValue ?? TypedValueNotation.canonicalText(item))
        }
    default:
        fail(usage)
    }
} catch {
    fail("containing-app-example: \(error.message)", status: 1)
}
