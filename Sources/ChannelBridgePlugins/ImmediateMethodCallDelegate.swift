package import ChannelBridgeChannels
package import ChannelBridgeCodec

/// A method-call delegate that can answer a call as it arrives, without a task: a
/// plugin's read from a cache. `PluginRegistrar.addMethodCallDelegate(_:channel:)` installs it with
/// `MethodChannel.setImmediateMethodCallHandler`, so such a call costs what a synchronous handler's
/// does; every other call goes to the work `answerImmediately(_:)` returns, in a task.
///
/// `handle(_:)` must answer as `answerImmediately(_:)` does, for a messenger that has no immediate
/// path; `handle(immediately:)` below is that.
package protocol ImmediateMethodCallDelegate: MethodCallDelegate {
    /// The result of `call` when it is at hand, else the work that finds it; throws as `handle(_:)`
    /// does. Runs on the thread that read the call, so it must not block.
    func answerImmediately(_ call: MethodCall) throws -> MethodChannel.ImmediateResult

    /// The answer to a call of `method` read from its Standard-codec arguments where they lie,
    /// before they are decoded (`MethodChannel.EncodedImmediateHandler`); `nil` to have them
    /// decoded and the call given to `answerImmediately(_:)`. Whatever it answers or throws must be
    /// what `answerImmediately(_:)` would for the same call. By default it declines every call.
    func answerImmediately(
        _ method: String, encodedArguments: StandardEncodedArguments
    ) throws -> MethodChannel.ImmediateResult?
}

extension ImmediateMethodCallDelegate {
    package func answerImmediately(
        _ method: String, encodedArguments: StandardEncodedArguments
    ) throws -> MethodChannel.ImmediateResult? {
        nil
    }

    /// `handle(_:)` in terms of `answerImmediately(_:)`.
    package func handle(immediately call: MethodCall) async throws -> StandardValue {
        switch try answerImmediately(call) {
        case .value(let value): value
        case .later(let work): try await work()
        }
    }
}
