import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgePlatform
import Foundation
import ChannelBridgeSocket

/// The soak's clients, each a loop until a deadline that counts what it does in a `SoakLedger`:
/// writers (pipelined), readers, listeners that cancel their stream or drop their connection, and
/// `channelbridge prefs` processes on the host's data directory. (The list taken while it is
/// appended to is `SoakInbox`'s.) An error is recorded and the loop goes on where it can.
enum SoakWorkers {
    /// Connects, chooses the stress app group, runs `body`, and closes the connection whatever
    /// `body` does.
    static func withPreferences(
        _ socket: String,
        _ body: (SharedPreferencesClient, ExtensionHostClient) async throws -> Void
    ) async throws {
        let client = try await ExtensionHostClient.connect(to: socket)
        do {
            try await body(try await client.sharedPreferences(appGroup: StressHost.appGroup), client)
        } catch {
            client.close()
            await client.connection.waitUntilClosed()
            throw error
        }
        client.close()
        await client.connection.waitUntilClosed()
    }

    /// Writes with up to `window` calls in flight (a new window of 1–16 every 100 calls), until
    /// `deadline`: setString, setInt, remove and appendToList on keys of its own. Every key is
    /// rewritten or removed over and over (the list every 64 calls), so the store stays small.
    static func write(as writer: Int, socket: String, ledger: SoakLedger, until deadline: ContinuousClock.Instant) async
    {
        do {
            try await withPreferences(socket) { prefs, _ in
                await withTaskGroup(of: Void.self) { group in
                    var number = 0, inFlight = 0, window = Int.random(in: 1...16)
                    while ContinuousClock.now < deadline {
                        if inFlight >= window {
                            await group.next()
                            inFlight -= 1
                            continue
                        }
                        number += 1
                        if number % 100 == 0 { window = Int.random(in: 1...16) }
                        let call = number
                        group.addTask { await writeOne(call, as: writer, prefs, ledger) }
                        inFlight += 1
                    }
                }
            }
        } catch {
            ledger.error("writer \(writer)", error)
        }
    }

    /// Write number `call` of `writer`.
    private static func writeOne(
        _ call: Int, as writer: Int, _ prefs: SharedPreferencesClient, _ ledger: SoakLedger
    ) async {
        let prefix = "w\(writer)-"
        switch call % 8 {
        case 0, 1, 2:
            await ledger.write("setString") { try await prefs.setString(prefix + "s\(call % 16)", "value \(call)") }
        case 3, 4:
            await ledger.write("setInt") { try await prefs.setInt(prefix + "i\(call % 16)", call) }
        case 5:
            await ledger.write("remove") { try await prefs.remove(prefix + "s\((call / 8) % 16)") }
        case 6:
            await ledger.write("appendToList") {
                try await prefs.appendToList(prefix + "list", [.string("item \(call)")])
            }
        default:
            if call % 64 == 7 {
                await ledger.write("remove") { try await prefs.remove(prefix + "list") }
            } else {
                await ledger.write("setString") { try await prefs.setString(prefix + "s\(call % 16)", "value \(call)") }
            }
        }
    }

    /// getString of the writers' keys, and getAll every tenth call, one call at a time.
    static func read(writers: Int, socket: String, ledger: SoakLedger, until deadline: ContinuousClock.Instant) async {
        do {
            try await withPreferences(socket) { prefs, _ in
                var number = 0
                while ContinuousClock.now < deadline {
                    number += 1
                    let kind = number % 10 == 0 ? "getAll" : "getString"
                    do {
                        if number % 10 == 0 {
                            _ = try await prefs.getAll()
                        } else {
                            _ = try await prefs.getString("w\(number % writers)-s\(number % 16)")
                        }
                        ledger.count(kind)
                    } catch {
                        ledger.error(kind, error)
                    }
                }
            }
        } catch {
            ledger.error("reader", error)
        }
    }

    /// On one connection: listens to the change stream for 20–200 ms, cancels the stream, again.
    static func listenAndCancel(socket: String, ledger: SoakLedger, until deadline: ContinuousClock.Instant) async {
        do {
            try await withPreferences(socket) { prefs, _ in
                while ContinuousClock.now < deadline {
                    let listening = listen(prefs)
                    try await Task.sleep(for: .milliseconds(Int.random(in: 20...200)))
                    listening.cancel()
                    let (events, error) = await listening.value
                    ledger.count("events_received", events)
                    ledger.count("listen_then_cancel")
                    if let error { ledger.error("listen_then_cancel", error) }
                }
            }
        } catch {
            ledger.error("cancelling listener", error)
        }
    }

    /// A connection per round: listens for 20–200 ms, then drops the whole connection while
    /// listening, alternately with GOODBYE (the client's `close`) and by closing the socket with
    /// nothing said (a raw peer that sent HELLO and `listen`).
    static func listenAndDrop(socket: String, ledger: SoakLedger, until deadline: ContinuousClock.Instant) async {
        var round = 0
        while ContinuousClock.now < deadline {
            round += 1
            let pause = Int.random(in: 20...200)
            if round % 2 == 0 {
                do {
                    try await dropWithoutGoodbye(socket: socket, afterMilliseconds: pause)
                    ledger.count("listen_then_reset")
                } catch {
                    ledger.error("listen_then_reset", error)
                }
                continue
            }
            do {
                let client = try await ExtensionHostClient.connect(to: socket)
                let prefs: SharedPreferencesClient
                do {
                    prefs = try await client.sharedPreferences(appGroup: StressHost.appGroup)
                } catch {
                    client.close()
                    await client.connection.waitUntilClosed()
                    throw error
                }
                let listening = listen(prefs)
                try await Task.sleep(for: .milliseconds(pause))
                client.close()
                // The stream ends with the connection (its error then is the close, expected here);
                // cancelling as well makes sure it does.
                listening.cancel()
                let (events, _) = await listening.value
                await client.connection.waitUntilClosed()
                ledger.count("events_received", events)
                ledger.count("listen_then_goodbye")
            } catch {
                ledger.error("listen_then_goodbye", error)
            }
        }
    }

    /// Iterates the change stream in a task of its own: the events counted, and the error that
    /// ended the stream, if any.
    private static func listen(_ prefs: SharedPreferencesClient) -> Task<(Int, (any Error)?), Never> {
        let changes = prefs.changes()
        return Task {
            var events = 0
            do {
                for try await _ in changes { events += 1 }
                return (events, nil)
            } catch {
                return (events, error)
            }
        }
    }

    /// HELLO and `listen` from a raw socket, `milliseconds` of events unread, then close: the host
    /// sees the connection end with no GOODBYE. On a thread: the socket calls block.
    private static func dropWithoutGoodbye(socket: String, afterMilliseconds milliseconds: Int) async throws {
        let listen = try RawPeer.call(
            id: 1, channel: SharedPreferencesClient.changesChannelName, method: "listen",
            arguments: ["appGroup": .string(StressHost.appGroup)])
        try await ChildProcess.onThread("soak reset") {
            let peer = try RawPeer(path: socket)
            defer { peer.close() }
            if let failure = peer.writeAll(RawPeer.hello() + listen) {
                throw StressError("the host did not take HELLO and listen: \(failure)")
            }
            Syscalls.sleep(microseconds: UInt32(milliseconds) * 1000)
        }
    }

    /// Every `period` until `deadline`: `channelbridge prefs set`, `get` (which must print the value
    /// set) and `append` (an item of the inbox) as processes of their own on the host's data
    /// directory, each of which must exit 0.
    static func runCLI(
        dataDirectory: String, inbox: SoakInbox, ledger: SoakLedger, every period: Duration,
        until deadline: ContinuousClock.Instant
    ) async {
        let common = ["--data-dir", dataDirectory, "--app-group", StressHost.appGroup]
        var run = 0
        var next = ContinuousClock.now
        while next < deadline {
            run += 1
            let key = "cli-\(run % 8)", value = "cli value \(run)", item = "cli-\(run)"
            do {
                _ = try await cli(["prefs", "set", key, value] + common)
                ledger.count("cli_prefs_set")
                let shown = try await cli(["prefs", "get", key] + common)
                ledger.count("cli_prefs_get")
                if shown != "\"\(value)\"\n" {
                    ledger.error(
                        "channelbridge prefs get \(key)",
                        StressError("printed \(shown.debugDescription), not \"\(value)\""))
                }
                _ = try await cli(["prefs", "append", SoakInbox.key, item] + common)
                inbox.acknowledged([item])
                ledger.count("cli_prefs_append")
            } catch {
                ledger.error("channelbridge prefs (run \(run))", error)
            }
            next += period
            try? await Task.sleep(until: min(next, deadline))
        }
    }

    /// Runs the `channelbridge` built beside this one; its output, or an error naming its status.
    private static func cli(_ arguments: [String]) async throws -> String {
        let child = try ChildProcess(product: "channelbridge", arguments: arguments)
        child.closeInput()
        return try await child.finish()
    }
}
