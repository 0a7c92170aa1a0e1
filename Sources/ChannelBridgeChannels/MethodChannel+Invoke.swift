import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The three steps of `invokeMethod`: encoding the call, awaiting its reply on a connection,
/// decoding the reply. Each is inlined into `invokeMethod`, so the call still awaits its reply in
/// that one frame (see `call(_:_:on:)`).
extension MethodChannel {
    /// The call's request. With `pooled` (a call on a connection itself, without a timeout) a
    /// Standard call is written over the channel's reused encode buffer and goes out lent
    /// (`Payload.isLent`): the connection lends that buffer on for the reply.
    @inline(__always)
    func encodeCall(_ method: String, arguments: StandardValue, pooled: Bool) throws(ChannelError) -> Payload {
        do throws(CodecError) {
            if isStandard {
                guard pooled else {
                    return try standardCodec.encodeMethodCallSegments(MethodCall(method, arguments: arguments))
                }
                // Lent unless a large byte value came back in segments; a large lent request goes
                // out of its own array, cut to size, and is not kept (`startRequest`).
                return try standardCodec.encodeMethodCall(method, arguments: arguments, reusing: encodeBuffers.take())
            }
            if let payload = try segmentingCodec?.encodeMethodCallSegments(MethodCall(method, arguments: arguments)) {
                // Optional chaining calls the codec in place; `if let` would copy the optional
                // existential through the runtime's value witnesses.
                return payload
            }
            return Payload(try codec.encodeMethodCall(MethodCall(method, arguments: arguments)))
        } catch {
            throw ChannelError(
                .unencodable, "Cannot encode the call: \(error)", channel: name, method: method,
                codecError: error)
        }
    }

    /// Sends `request` on `connection` and awaits its reply: the same call as `messenger.send`,
    /// awaited in the caller's frame once inlined, because each async function between that frame
    /// and the continuation costs a hop back on return, and under a task-executor preference every
    /// hop takes the concurrency runtime's status-record lock.
    @inline(__always)
    nonisolated(nonsending) func call(
        _ method: String, _ payload: consuming Payload, on connection: MessengerConnection
    ) async throws -> Payload? {
        do {
            let prepared = try connection.prepareRequest(onChannel: name, payloadCount: payload.count)
            if prepared.mustWaitForRoom { await connection.waitUntilWritable() }
            // The continuations are made where this call runs, without the hop to an isolation
            // parameter that `withUnsafeThrowingContinuation(isolation:)` makes first (another
            // status-record lock per call); the closures only hand them to the connection.
            if prepared.scopeTask != 0, connection.canDriveReader {
                // On the reader thread with nothing else for it to do: read the reply here
                // instead of suspending (`MessengerConnection+DrivenCalls`).
                switch try connection.startDrivenRequest(prepared, onChannel: name, payload: consume payload) {
                case .replied(let payload):
                    return payload
                case .waiting:
                    // Safe: resumed exactly once by the connection (`awaitDrivenReply`).
                    return try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                        connection.awaitDrivenReply(prepared, continuation: continuation)
                    }
                }
            }
            if prepared.scopeTask != 0 {
                // Safe: resumed exactly once by the connection (`startRequest`).
                return try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                    connection.startRequest(
                        prepared, onChannel: name, payload: Self.take(&payload), continuation: continuation)
                }
            }
            return try await withTaskCancellationHandler {
                // Safe: resumed exactly once by the connection (`startRequest`).
                try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                    connection.startRequest(
                        prepared, onChannel: name, payload: Self.take(&payload), continuation: continuation)
                }
            } onCancel: {
                connection.cancelRequest(prepared.id)
            }
        } catch let error as MessengerError {
            // The messenger sees only bytes; the channel reports the failure, naming the method.
            throw ChannelError(error, channel: name, method: method)
        }
    }

    /// `payload`, leaving it empty: the call's request moves into the connection, which lends
    /// its buffer for the reply, so that the caller's frame keeps no reference to it (one would
    /// make the reply's write into it copy the buffer).
    static func take(_ payload: inout Payload) -> Payload {
        var taken = Payload([])
        swap(&taken, &payload)
        return taken
    }

    /// The result the reply carries, or the error it carries or is.
    @inline(__always)
    func decodeReply(_ reply: consuming Payload, method: String) throws -> StandardValue {
        let envelope: MethodEnvelope
        do {
            if reply.isLent {
                // The reply came back in the encode buffer this call lent (only Standard channels
                // lend one), which then goes back for the next call.
                let range = reply.readableRange
                let buffer = (consume reply).storage
                defer { encodeBuffers.giveBack(buffer) }
                envelope = try buffer.withUnsafeBytes { raw in
                    Result { () throws(CodecError) in
                        try standardCodec.decodeEnvelope(in: UnsafeRawBufferPointer(rebasing: raw[range]))
                    }
                }.get()
            } else if let tail = reply.segments.first {
                // Only Standard channels ask for split replies; the list is the tail, uncopied.
                envelope = try standardCodec.decodeEnvelope(head: reply.head, tail: tail)
            } else if isStandard {
                envelope = try standardCodec.decodeEnvelope(reply.array)
            } else {
                envelope = try codec.decodeEnvelope(reply.array)
            }
        } catch {
            throw ChannelError(
                .malformedReply, "Cannot decode the reply: \(error)", channel: name, method: method,
                codecError: error)
        }
        return try envelope.get()
    }
}
