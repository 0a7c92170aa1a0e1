import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket

/// What every command that talks to a host shares: `--socket`, `--json`, connecting, printing
/// values, and turning errors into the documented exit statuses.
struct ClientContext {
    static let valuedOptions: Set<String> = ["socket", "timeout"]
    /// For commands that print values; a command that prints none takes no `--json`.
    static let flagOptions: Set<String> = ["json"]
    static let timeoutVariable = "CHANNELBRIDGE_TIMEOUT"
    static let socketHelp = """
          --socket PATH   the host's socket (default: \(SocketPath.defaultPath()))
          --timeout SECONDS
                          give up when the host has not answered within SECONDS (a decimal > 0):
                          connecting (which waits for a host still starting: no socket file yet)
                          and the host's HELLO together, and each call, may take that long;
                          waiting for events or input is not limited. Default: $\(timeoutVariable),
                          else 5 s to connect and 30 s per call. On timeout: exit status 75
        """
    static let optionsHelp =
        socketHelp + """

              --json          print plain JSON instead of typed value notation where the value allows it
            """

    let socketPath: String
    let json: Bool
    /// Connecting plus the host's HELLO may take this long.
    let connectTimeout: Duration
    /// Each call may take this long.
    let callTimeout: Duration

    init(_ args: Arguments) throws {
        socketPath = args.value("socket") ?? SocketPath.defaultPath()
        json = args.flag("json")
        let timeout: Duration?
        if let text = args.value("timeout") {
            timeout = try Self.seconds(text, what: "--timeout")
        } else if let text = Syscalls.environment(Self.timeoutVariable) {
            timeout = try Self.seconds(text, what: Self.timeoutVariable)
        } else {
            timeout = nil
        }
        connectTimeout = timeout ?? SocketConnection.Options.defaultConnectTimeout
        callTimeout = timeout ?? ExtensionHostClient.defaultCallTimeout
    }

    /// A timeout in seconds: a finite decimal greater than 0, else a usage error naming `what`.
    static func seconds(_ text: String, what: String) throws -> Duration {
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw UsageError("\(what) takes a number of seconds greater than 0, not '\(text)'")
        }
        // Whole nanoseconds, at least one, so a tiny positive value stays positive.
        return .nanoseconds(max(1, Int64(min(value * 1e9, Double(Int64.max / 2)))))
    }

    /// Connects, waiting for a host that is still starting: while there is no socket file, or it
    /// refuses connections (bound but not yet listening, or left by a host that is gone), it tries
    /// again after a bounded backoff (10 ms, doubling up to 100 ms) until `connectTimeout` has
    /// passed since the first try. A shell line after `extension-host … &` therefore works without
    /// waiting for the `ready` line; the cost is that a host that never comes is reported only
    /// after the timeout.
    func connect() async throws -> ExtensionHostClient {
        let clock = ContinuousClock()
        let deadline = clock.now + connectTimeout
        var pause: Duration = .milliseconds(10)
        while true {
            var options = SocketConnection.Options()
            options.connectTimeout = max(deadline - clock.now, .milliseconds(1))
            do {
                return try await ExtensionHostClient.connect(to: socketPath, options: options, callTimeout: callTimeout)
            } catch let error as SocketError where error.code == .notFound || error.code == .connectionRefused {
                let remaining = deadline - clock.now
                guard remaining > .zero else {
                    // A host removes its socket file when it finishes, so "never started" and "finished" look the same.
                    let file = error.code == .notFound ? "no socket file" : "a stale socket file"
                    throw CommandFailure(
                        ExitCode.unavailable,
                        "cannot reach a host at \(socketPath): no host is listening "
                            + "there (\(file) after \(Self.secondsText(connectTimeout)) s; it may have finished)")
                }
                try? await Task.sleep(for: min(pause, remaining))
                pause = min(pause * 2, .milliseconds(100))
            } catch let error as SocketError where error.code == .unsafeDirectory {
                // The message names the directory, its owner and mode, and what to do.
                throw CommandFailure(ExitCode.unavailable, "cannot reach a host at \(socketPath): \(error.message)")
            } catch let error as SocketError where error.code == .timedOut {
                throw CommandFailure(
                    ExitCode.temporaryFailure, SocketError.timedOut(path: socketPath, after: connectTimeout).message)
            } catch {
                throw CommandFailure(
                    ExitCode.unavailable, "cannot reach a host at \(socketPath): \(Self.describe(error))")
            }
        }
    }

    /// `failure(_:oneShot:)`, with a call that timed out reported as a host that gave no answer
    /// (exit status 75).
    func failure(_ error: any Error, oneShot: Bool = true) -> CommandFailure {
        if let error = error as? ChannelError, error.code == .timedOut {
            return CommandFailure(
                ExitCode.temporaryFailure, SocketError.timedOut(path: socketPath, after: callTimeout).message)
        }
        return Self.failure(error, oneShot: oneShot)
    }

    /// Canonical TVN, or with `--json` plain JSON when the value has a JSON form.
    func text(_ value: StandardValue) -> String {
        if json, let plain = try? JSONMessageCodec.json(for: value) { return plain.text }
        return TypedValueNotation.canonicalText(value)
    }

    /// Parses a hand-typed argument as lenient TVN; bad input is exit status 65.
    static func value(_ text: String, what: String) throws -> StandardValue {
        do {
            return try TypedValueNotation.parse(text, lenient: true)
        } catch {
            throw CommandFailure(ExitCode.dataError, "\(what) is not valid typed value notation: \(error.message)")
        }
    }

    /// Maps any failure of a remote call to a message and an exit status: 1 for an answer from
    /// the host (an error envelope, not implemented, a handler failure), 69 when the host is
    /// gone, 65 for data this side could not encode, 75 when the host did not answer in time. A one-shot command adds a hint where an error
    /// comes from each command being a session of its own.
    static func failure(_ error: any Error, oneShot: Bool = true) -> CommandFailure {
        switch error {
        case let failure as CommandFailure:
            return failure
        case let error as MethodError:
            var text = "remote error \(error.code)"
            if let message = error.message { text += ": \(message)" }
            if error.details != .null { text += "\ndetails: \(TypedValueNotation.canonicalText(error.details))" }
            if oneShot, error.code == "APP_GROUP_HAS_NOT_BEEN_SET" {
                text +=
                    "\nhint: each channelbridge command is a session of its own, so a setAppGroup made by an earlier"
                    + " command is gone; choose the group in the same session with 'channelbridge session', or use"
                    + " 'channelbridge prefs … --app-group GROUP'"
            }
            return CommandFailure(ExitCode.failure, text)
        case let error as ChannelError where error.code == .notImplemented:
            return CommandFailure(ExitCode.failure, "not implemented: \(error.message)")
        case let error as ChannelError where error.code == .unencodable:
            return CommandFailure(ExitCode.dataError, error.description)
        case let error as ChannelError where error.code == .handlerFailed:
            return CommandFailure(ExitCode.failure, "remote failure: \(error.description)")
        case let error as ChannelError where error.messengerError != nil:
            return CommandFailure(ExitCode.unavailable, "connection lost: \(error.description)")
        case let error as MessengerError where error.code == .handlerFailed:
            return CommandFailure(ExitCode.failure, "remote failure: \(error.description)")
        case let error as MessengerError:
            return CommandFailure(ExitCode.unavailable, "connection lost: \(error.description)")
        case let error as SocketError where error.code == .timedOut:
            return CommandFailure(ExitCode.temporaryFailure, error.message)
        case let error as SocketError:
            return CommandFailure(ExitCode.unavailable, error.description)
        case let error as CodecError:
            return CommandFailure(ExitCode.dataError, error.description)
        default:
            return CommandFailure(ExitCode.failure, describe(error))
        }
    }

    /// `duration` in seconds as the messages show it: `5`, `0.25`.
    static func secondsText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }

    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }

    /// Runs `body` with a connected client, closing it afterwards and mapping errors.
    func withClient<T>(_ body: (ExtensionHostClient) async throws -> T) async throws -> T {
        let client = try await connect()
        defer { client.close() }
        do {
            return try await body(client)
        } catch {
            throw failure(error)
        }
    }
}
