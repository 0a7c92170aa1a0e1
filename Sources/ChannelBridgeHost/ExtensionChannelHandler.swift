import ChannelBridgeChannels
package import ChannelBridgeCodec
import ChannelBridgeMessenger
package import ChannelBridgeStore

/// Answers the extension channel (`channelbridge/extension` unless `--channel` says otherwise) for
/// every session: the extension's `NSExtensionContext` seen from the UI side.
///
/// | method | arguments | result |
/// |---|---|---|
/// | `getInputItems` | — | the input items |
/// | `exit` / `completeRequest` | `null` or a list of returned items | `null`; the request completes |
/// | `cancel` | `{code, message?, details?}` | `null`; the request is cancelled |
/// | `openURL` | `{url}` | `true` / `false` per `--open-url`; recorded |
/// | `getAppGroupContainer` | `{appGroup}` | the container's path (created if missing) |
///
/// Error codes are `ErrorCode`'s. Any other method gets a null reply ("not implemented").
package struct ExtensionChannelHandler: Sendable {
    /// The `code` of every error the extension channel answers with.
    package enum ErrorCode {
        /// `exit`, `completeRequest` or `cancel` after the request has ended. Details: the outcome.
        package static let requestAlreadyCompleted = "REQUEST_ALREADY_COMPLETED"
        /// `getAppGroupContainer` for a group the host is not entitled to. Details: `appGroup`,
        /// `entitledAppGroups`.
        package static let appGroupNotEntitled = "APP_GROUP_NOT_ENTITLED"
        /// Arguments of the wrong shape. Details: `method`, `argument`.
        package static let invalidArguments = "INVALID_ARGUMENTS"
        /// The store could not create or find the container. Details: `storeCode`, `path`.
        package static let storeError = "STORE_ERROR"
    }

    package let channel: String
    package let request: ExtensionRequest
    package let store: AppGroupStore
    package let entitledAppGroups: [String]
    package let allowsOpenURL: Bool

    package init(
        channel: String, request: ExtensionRequest, store: AppGroupStore, entitledAppGroups: [String],
        allowsOpenURL: Bool
    ) {
        self.channel = channel
        self.request = request
        self.store = store
        self.entitledAppGroups = entitledAppGroups
        self.allowsOpenURL = allowsOpenURL
    }

    /// Answers `call`. Called directly, outside a channel, the end of the request (for `exit`,
    /// `completeRequest`, `cancel`) is signalled at once, as there is no reply to wait for.
    package func handle(_ call: MethodCall) async throws -> StandardValue {
        let (value, afterReply) = try await handleThenAfterReply(call)
        afterReply?()
        return value
    }

    /// Answers `call`, and for a call that ended the request returns the work that lets the host
    /// shut down, for the messenger to run once this call's reply has been queued
    /// (`MethodChannel.setMethodCallHandler(replyThen:)`).
    package func handleThenAfterReply(
        _ call: MethodCall
    ) async throws -> (StandardValue, afterReply: (@Sendable () -> Void)?) {
        switch call.method {
        case "exit", "completeRequest", "cancel":
            if let remote = request.remote { return try await remoteEndingCall(call, remote) }
            let replied = try endingCall(call)
            return (.null, { replied.raise() })
        default:
            return (try await answer(call), nil)
        }
    }

    private func endingCall(_ call: MethodCall) throws -> OneShotSignal {
        let (outcome, returned, error) = try ending(call)
        return try end(outcome, returnedItems: returned, error: error, method: call.method)
    }

    /// What an ending call asks for, its arguments checked.
    private func ending(_ call: MethodCall) throws -> (HostOutcome, StandardValue?, MethodError?) {
        switch call.method {
        case "cancel":
            let code = try string(call, "code")
            let message = try optionalString(call, "message")
            let details = call.arguments["details"] ?? .null
            return (.cancelled, nil, MethodError(code: code, message: message, details: details))
        default:
            switch call.arguments {
            case .null: return (.completed, nil, nil)
            case .list: return (.completed, call.arguments, nil)
            default:
                throw invalid(
                    call.method, nil,
                    "the arguments must be null or a list of returned items, got "
                        + call.arguments.dartTypeName)
            }
        }
    }

    /// An ending call in an isolated host's worker: the worker's own sessions refuse further
    /// requests at once (before the next frame is read), and the host decides whether this call
    /// ended the request. The host goes on with its shutdown once told that this reply is queued.
    private func remoteEndingCall(
        _ call: MethodCall, _ remote: RemoteRequest
    ) async throws -> (StandardValue, afterReply: (@Sendable () -> Void)?) {
        let (outcome, returned, error) = try ending(call)
        if let earlier = request.end(outcome, returnedItems: returned, error: error, endingReply: nil) {
            // The host's shutdown reached this worker first.
            throw alreadyCompleted(call.method, earlier.name)
        }
        if let earlier = try await remote.end(outcome, returnedItems: returned, error: error) {
            throw alreadyCompleted(call.method, WorkerChannel.outcome(.string(earlier))?.name ?? earlier)
        }
        return (.null, { remote.endingReplied() })
    }

    private func alreadyCompleted(_ method: String, _ earlier: String) -> MethodError {
        MethodError(
            code: ErrorCode.requestAlreadyCompleted,
            message: "\(method): the extension request has already ended (\(earlier))",
            details: ["outcome": .string(earlier)])
    }

    private func answer(_ call: MethodCall) async throws -> StandardValue {
        switch call.method {
        case "getInputItems":
            return .list(request.inputItems.map(\.standardValue))
        case "openURL":
            let url = try string(call, "url")
            guard !url.isEmpty else { throw invalid(call.method, "url", "the argument 'url' must not be empty") }
            if let remote = request.remote {
                try await remote.recordOpenedURL(OpenedURL(url: url, opened: allowsOpenURL))
            } else {
                request.recordOpenedURL(OpenedURL(url: url, opened: allowsOpenURL))
            }
            return .bool(allowsOpenURL)
        case "getAppGroupContainer":
            let appGroup = try string(call, "appGroup")
            // By code units: a canonically equivalent spelling names another directory.
            guard entitledAppGroups.contains(where: { CodeUnitString.equal($0, appGroup) }) else {
                throw MethodError(
                    code: ErrorCode.appGroupNotEntitled,
                    message: "getAppGroupContainer: not entitled to the app group '\(appGroup)' (entitled app groups: "
                        + "\(entitledAppGroups.joined(separator: ", ")))",
                    details: [
                        "appGroup": .string(appGroup),
                        "entitledAppGroups": .list(entitledAppGroups.map(StandardValue.string)),
                    ])
            }
            do {
                return .string(try await store.group(appGroup).containerDirectory())
            } catch {
                var details: [StandardValue.MapEntry] = [.init("storeCode", .string(error.code.description))]
                if let path = error.path { details.append(.init("path", .string(path))) }
                throw MethodError(
                    code: ErrorCode.storeError, message: "getAppGroupContainer: \(error.message)",
                    details: .map(details))
            }
        default:
            throw MethodNotImplemented()
        }
    }

    /// Ends the request, or answers `REQUEST_ALREADY_COMPLETED`. The host shuts down once the
    /// returned signal is raised, after this call's reply has been queued. Nothing before the end
    /// suspends, so a request the session reads after this one already sees the end.
    private func end(
        _ outcome: HostOutcome, returnedItems: StandardValue?, error: MethodError?,
        method: String
    ) throws -> OneShotSignal {
        let replied = OneShotSignal()
        if let earlier = request.end(outcome, returnedItems: returnedItems, error: error, endingReply: replied) {
            throw alreadyCompleted(method, earlier.name)
        }
        return replied
    }

    private func string(_ call: MethodCall, _ name: String) throws(MethodError) -> String {
        guard case .map = call.arguments else {
            throw invalid(
                call.method, nil,
                "the arguments must be a map with '\(name)', got "
                    + call.arguments.dartTypeName)
        }
        guard let value = call.arguments[name] else {
            throw invalid(call.method, name, "the argument '\(name)' is missing")
        }
        guard case .string(let text) = value else {
            throw invalid(call.method, name, "the argument '\(name)' must be a String, got \(value.dartTypeName)")
        }
        return text
    }

    private func optionalString(_ call: MethodCall, _ name: String) throws(MethodError) -> String? {
        switch call.arguments[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let value?:
            throw invalid(
                call.method, name, "the argument '\(name)' must be a String or null, got \(value.dartTypeName)")
        }
    }

    private func invalid(_ method: String, _ argument: String?, _ problem: String) -> MethodError {
        MethodError(
            code: ErrorCode.invalidArguments, message: "\(method): \(problem)",
            details: ["method": .string(method), "argument": argument.map(StandardValue.string) ?? .null])
    }
}
