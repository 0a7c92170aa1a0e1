import ChannelBridgeMessenger
import Dispatch
import Flutter
import Foundation

/// One session's channels, written as iOS plugin code is:
///
/// - `threading/probe` (method channel, no task queue) and `threading/probe-background` (the same
///   on a background task queue), methods answering where code ran, each a `Bool`:
///   `isMainThread` (the handler), `mainQueue` (a `DispatchQueue.main.async` block the handler
///   queued), `mainActor` (a `Task { @MainActor in }` the handler started), `timer` (a
///   `Timer.scheduledTimer` the handler scheduled, once it fired); and `order`, the messages
///   the `threading/order/N` channels got, in the order their handlers ran.
/// - `threading/ticks` (event channel): `listen` with a count N schedules a repeating timer whose
///   ticks send the events 0 to N-1 through `DispatchQueue.main.async` (as Pigeon's test plugin
///   streams), then the end of the stream.
/// - `threading/order/0`, `/1`, `/2` (string message channels): each message is recorded and
///   echoed.
enum ThreadingSession {
    static func serve(_ messenger: any BinaryMessenger, platformThread: FlutterEngine.PlatformThread) {
        let engine = FlutterEngine(messenger: messenger, options: FlutterEngine.Options(platformThread: platformThread))
        let order = OrderLog()
        FlutterMethodChannel(name: "threading/probe", binaryMessenger: engine).setMethodCallHandler { call, result in
            probe(call, Reply(result), order: order)
        }
        FlutterMethodChannel(
            name: "threading/probe-background", binaryMessenger: engine,
            codec: FlutterStandardMethodCodec.sharedInstance(),
            taskQueue: engine.makeBackgroundTaskQueue?()
        ).setMethodCallHandler { call, result in
            probe(call, Reply(result), order: order)
        }
        FlutterEventChannel(name: "threading/ticks", binaryMessenger: engine).setStreamHandler(Ticker())
        for index in 0..<3 {
            FlutterBasicMessageChannel(
                name: "threading/order/\(index)", binaryMessenger: engine,
                codec: FlutterStringCodec.sharedInstance()
            ).setMessageHandler { message, reply in
                order.seen.append(message as? String ?? "?")
                reply(message)
            }
        }
    }

    static func probe(_ call: FlutterMethodCall, _ reply: Reply, order: OrderLog) {
        switch call.method {
        case "isMainThread":
            reply.result(Thread.isMainThread)
        case "mainQueue":
            DispatchQueue.main.async { reply.result(Thread.isMainThread) }
        case "mainActor":
            Task { @MainActor in reply.result(Thread.isMainThread) }
        case "timer":
            _ = Timer.scheduledTimer(withTimeInterval: 0.01, repeats: false) { _ in reply.result(Thread.isMainThread) }
        case "order":
            reply.result(order.seen)
        default:
            reply.result(FlutterMethodNotImplemented)
        }
    }
}

/// A `FlutterResult` handed to a timer, a queue or a task, which call it once, as plugin code in
/// the Swift 6 language mode hands it over on iOS too.
struct Reply: @unchecked Sendable {
    // @unchecked: called once, by whichever of the handler's continuations answers.
    let result: FlutterResult
    init(_ result: @escaping FlutterResult) { self.result = result }
}

/// The messages the order channels got; touched only by their handlers, which run one at a time.
final class OrderLog {
    var seen: [String] = []
}

/// Streams 0 to N-1 from a repeating timer on the run loop of the thread `onListen` runs on.
final class Ticker: NSObject, FlutterStreamHandler, @unchecked Sendable {
    // @unchecked: `timer` and `sent` are touched on the main thread only (onListen, onCancel and
    // the ticks' main-queue blocks), as on iOS.
    private var timer: Timer?
    private var sent = 0

    func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError? {
        let count = (arguments as? NSNumber)?.intValue ?? 0
        let sink = Sink(events: events)
        sent = 0
        timer?.invalidate()
        timer = Timer.scheduledTimer(withTimeInterval: 0.005, repeats: true) { [self] _ in
            DispatchQueue.main.async { [self] in
                guard sent < count else { return }
                sink.events(sent)
                sent += 1
                if sent == count {
                    sink.events(FlutterEndOfEventStream)
                    timer?.invalidate()
                    timer = nil
                }
            }
        }
        return nil
    }

    func onCancel(withArguments arguments: Any?) -> FlutterError? {
        timer?.invalidate()
        timer = nil
        return nil
    }

    struct Sink: @unchecked Sendable {
        // @unchecked: called on the main thread only.
        let events: FlutterEventSink
    }
}
