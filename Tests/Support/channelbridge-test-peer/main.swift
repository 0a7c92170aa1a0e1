// A peer process for the channel tests over real sockets (ChannelBridgeSocketTests/ChannelsOverSocket*).
//
//   channelbridge-test-peer listen PATH    host: accept sessions on PATH, serve each one
//   channelbridge-test-peer connect PATH   client: connect to PATH and serve that one session
//   channelbridge-test-peer fd-check PATH  descriptor counts around rounds of sessions (DescriptorCheck.swift)
//   channelbridge-test-peer confinement-check -|messenger|transport|executor
//                                          a reader thread's state touched off its thread (ConfinementCheck.swift)
//   channelbridge-test-peer payload-range-check -
//                                          a payload's range set past its storage (PayloadRangeCheck.swift)
//
// Prints `ready` on stdout once it can be talked to (listening, or connected with HELLOs exchanged),
// then serves until stdin reaches end of file (the test process is gone) or, when connected, until
// the session ends. Errors go to stderr with exit status 1.
//
// What each session offers is in PeerSession.swift.
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import ChannelBridgeMessenger

func fail(_ message: String) -> Never {
    try? FileHandle.standardError.write(contentsOf: Data("channelbridge-test-peer: \(message)\n".utf8))
    exit(1)
}

func announceReady() {
    try? FileHandle.standardOutput.write(contentsOf: Data("ready\n".utf8))
}

/// Exits once stdin ends, so that a peer never outlives the test that started it.
func exitWhenStdinEnds() {
    let thread = Thread {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(0, &buffer, buffer.count)
            if count == 0 { exit(0) }
            if count < 0 && errno != EINTR { exit(0) }
        }
    }
    thread.name = "stdin watcher"
    thread.start()
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let mode = arguments.first, let path = arguments.last else {
    fail(
        "usage: channelbridge-test-peer listen|connect|fd-check PATH, confinement-check -|transport|executor, "
            + "or payload-range-check -")
}
// fd-check and the checks end by themselves; the serving modes end with their test.
if mode != "fd-check", mode != "confinement-check", mode != "payload-range-check" { exitWhenStdinEnds() }

switch mode {
case "confinement-check":
    ConfinementCheck.run(path)
case "payload-range-check":
    PayloadRangeCheck.run()
case "fd-check":
    do {
        try await DescriptorCheck.run(path: path)
        exit(0)
    } catch {
        fail("fd-check: \(error)")
    }
case "listen":
    let listener: SocketListener
    do {
        listener = try SocketListener(path: path, options: .init(connection: .init(name: "test peer host"))) {
            connection in
            PeerSession.serve(connection)
        }
    } catch {
        fail("cannot listen on \(path): \(error)")
    }
    announceReady()
    withExtendedLifetime(listener) {
        while true { pause() }  // until a signal ends the process (or `exit` from a close handler)
    }
case "connect":
    do {
        let connection = try await SocketConnection.connect(
            to: path,
            options: .init(name: "test peer client", connectTimeout: .seconds(HangGuardScale.scaled(5)))
        ) {
            PeerSession.serve($0)
        }
        connection.onClose { _ in exit(0) }
        _ = try await connection.messenger.waitForPeerHello()
        announceReady()
        withExtendedLifetime(connection) {
            while true { pause() }  // until a signal ends the process (or `exit` from a close handler)
        }
    } catch {
        fail("cannot connect to \(path): \(error)")
    }
default:
    fail("unknown mode \(mode); use listen, connect, fd-check, confinement-check or payload-range-check")
}
