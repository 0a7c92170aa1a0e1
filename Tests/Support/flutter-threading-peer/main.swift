// A host of iOS-style channels for the threading tests (FlutterTests/FlutterMainRunLoopTests):
// what thread handlers run on, timers scheduled from them, DispatchQueue.main, the main actor,
// and the order of messages, in a process of its own whose main thread runs the main run loop.
//
//   flutter-threading-peer SOCKET                  FlutterRunLoop.runMain, engines on the main thread
//   flutter-threading-peer SOCKET --engine-queue   the same, engines with queues of their own
//   flutter-threading-peer SOCKET --no-run-loop    the main thread parked in dispatchMain(), as in an
//                                                  executable with asynchronous top-level code
//
// Prints `ready SOCKET` once it accepts sessions and serves until stdin reaches end of file (the
// test is gone), then exits 0. What each session offers is in ThreadingSession.swift.

import ChannelBridgeSocket
import Dispatch
import Flutter
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("flutter-threading-peer: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first, arguments.count <= 2,
    arguments.count == 1 || ["--engine-queue", "--no-run-loop"].contains(arguments[1])
else {
    fail("usage: flutter-threading-peer SOCKET [--engine-queue | --no-run-loop]")
}
let platformThread: FlutterEngine.PlatformThread = arguments.last == "--engine-queue" ? .engineQueue : .main

/// Serves until stdin ends: a blocking read, on a thread of its own.
@Sendable func serveUntilStdinEnds() async -> Int32 {
    let listener: SocketListener
    do {
        listener = try SocketListener(path: path) { session in
            ThreadingSession.serve(session.messenger, platformThread: platformThread)
        }
    } catch {
        fail("cannot listen on \(path): \(error)")
    }
    FileHandle.standardOutput.write(Data("ready \(path)\n".utf8))
    await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            ended.resume()
        }
    }
    listener.close()
    await listener.waitUntilClosed()
    return 0
}

if arguments.last == "--no-run-loop" {
    Task.detached { exit(await serveUntilStdinEnds()) }
    dispatchMain()
} else {
    exit(FlutterRunLoop.runMain { await serveUntilStdinEnds() })
}
