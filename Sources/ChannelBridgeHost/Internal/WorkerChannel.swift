import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeSocket

/// The control channel between an isolated host and each of its workers (Protocol/extension-host.md
/// §1.8): the wire protocol over a socket pair, one `StandardMethodCodec` method channel both ways.
///
/// | from | method | arguments | answer |
/// |---|---|---|---|
/// | worker | `start` | — | `{"inputItems": [...]}`, the request's items as `getInputItems` answers them |
/// | worker | `ready` | — | `null`; an idle worker has started and rehearsed a session (`WorkerWarmUp`) |
/// | worker | `end` | `{"outcome", "returnedItems", "error"}` | `null` when this call ended the request, else the earlier outcome's description |
/// | worker | `endingReplied` | — | `null`; the reply to the call that ended the request has been queued |
/// | worker | `openURL` | `{"url", "opened"}` | `null`; recorded for the completion record |
/// | host | `shutDown` | `{"reason", "outcome"}` | `null`, once the session has been closed with GOODBYE `shuttingDown` and its plugins torn down |
/// | host | `unfinishedCalls` | — | the requests the session has received and not yet answered (int), at the shutdown deadline |
enum WorkerChannel {
    static let name = "channelbridge/worker"
    /// Set (to `1`) in a worker's environment: the executable then serves one session as a worker.
    static let environmentVariable = "CHANNELBRIDGE_HOST_WORKER"
    /// The worker's control channel socket.
    static let controlDescriptor: Int32 = 3
    /// The worker's hand-off socket: the client's descriptor arrives here, and a crash report
    /// leaves here.
    static let handOffDescriptor: Int32 = 4

    /// Swift's backtracer setting (`SWIFT_BACKTRACE`, read by the Swift runtime at start).
    static let backtraceVariable = "SWIFT_BACKTRACE"
    /// What a worker gets when the host's environment does not set `SWIFT_BACKTRACE`: no
    /// backtrace. The backtracer's report of one crash costs seconds of processor time, which the
    /// other sessions' calls wait for on a small machine; the GOODBYE, the worker's report line and
    /// the host's log name the signal, channel and method without it.
    static let defaultWorkerBacktrace = "enable=no"

    /// A worker's environment on top of the host's (`NAME=value`): the marker that makes the
    /// executable a worker and, unless `hostBacktrace` (the host's `SWIFT_BACKTRACE`) is set, the
    /// backtracer turned off. A `SWIFT_BACKTRACE` the user set is inherited as it is.
    static func workerEnvironment(hostBacktrace: String?) -> [String] {
        var environment = ["\(environmentVariable)=1"]
        if hostBacktrace == nil { environment.append("\(backtraceVariable)=\(defaultWorkerBacktrace)") }
        return environment
    }

    /// `workerEnvironment` for this process's environment, read once.
    static let processWorkerEnvironment = workerEnvironment(
        hostBacktrace: Syscalls.environment(backtraceVariable))

    /// The control connection's settings: no HELLO or frame deadline (both ends are this host),
    /// no request budget.
    static func connectionOptions(name: String) -> SocketConnection.Options {
        var options = SocketConnection.Options()
        options.name = name
        options.helloTimeout = nil
        options.frameTimeout = nil
        return options
    }

    static func encode(_ outcome: HostOutcome) -> StandardValue { .string(outcome.description) }

    static func outcome(_ value: StandardValue?) -> HostOutcome? {
        guard let text = value?.stringValue else { return nil }
        let all: [HostOutcome] = [.completed, .cancelled, .expired, .interrupted(.sigint), .interrupted(.sigterm)]
        return all.first { $0.description == text }
    }

    static func encode(_ error: MethodError?) -> StandardValue {
        guard let error else { return .null }
        return [
            "code": .string(error.code), "message": error.message.map(StandardValue.string) ?? .null,
            "details": error.details,
        ]
    }

    static func error(_ value: StandardValue?) -> MethodError? {
        guard let value, let code = value["code"]?.stringValue else { return nil }
        return MethodError(code: code, message: value["message"]?.stringValue, details: value["details"] ?? .null)
    }
}
