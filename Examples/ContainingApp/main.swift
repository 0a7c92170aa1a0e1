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
//   containing-app-example share ITEM --data-dir DIR [--group G]   (the extension's side)
//   containing-app-example import --data-dir DIR [--group G]        (the app's side: one item per line)

import ChannelBridgeCodec
import ChannelBridgeStore
import Foundation

let itemListKey = "itemList"

func option(_ name: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let role = arguments.first, let dataDirectory = option("--data-dir", in: arguments) else {
    FileHandle.standardError.write(Data("usage: containing-app-example share ITEM|import --data-dir DIR [--group G]\n".utf8))
    exit(64)
}
let store = try AppGroupStore(dataDirectory: dataDirectory).group(option("--group", in: arguments) ?? "group.example")

switch role {
case "share":
    guard arguments.count > 1 else { exit(64) }
    let item = arguments[1]
    // Appending under the lock: a concurrent import either sees the item or leaves it for the next.
    try await store.appendToList(key: itemListKey, values: [.string(item)])
case "import":
    let imported = try await store.take(key: itemListKey)?.listValue ?? []
    for item in imported {
        print(item.stringValue ?? TypedValueNotation.canonicalText(item))
    }
default:
    FileHandle.standardError.write(Data("unknown role '\(role)'; use share or import\n".utf8))
    exit(64)
}
