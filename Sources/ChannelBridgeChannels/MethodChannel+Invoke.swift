import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The three steps of `invokeMethod`: encoding the call, awaiting its reply on a connection,
/// decoding the reply. Each is inlined into `invokeMethod`, so the call still awaits its reply in
/// that one frame (see `call(_:_:pooledCount:on:)`).
extension MethodChannel {
    /// The call's request, built straight as the messenger's type: each conversion on the way
    /// would be a retain and a release of the buffer. With `pooled` (a call on a connection
    /// itself, without a timeout) a Standard call goes out of the channel's reused encode buffer,
    /// and `pooledCount` says how many of its first bytes are the call.
    @inline(__always)
    func encodeCall(
        _ method: String, arguments: StandardValue, pooled: Bool,
        pooledCount: inout Int?
    ) throws(ChannelError) -> MessageSegments {
        do throws(CodecError) {
            if isStandard {
                guard pooled else {
                    let kept = try standardCodec.encodeMethodCallSegments(MethodCall(method, arguments: arguments))
                    return MessageSegments(kept.first, rest: kept.rest)
                }
                var buffer = encodeBuffers.take()
                switch try standardCodec.encodeMethodCall(method, arguments: arguments, reusing: &buffer) {
                case .inBuffer(let count) where count < MessengerConnection.separatePayloadThreshold:
                    pooledCount = count
                    return MessageSegments(consume buffer)
                case .inBuffer(let count):
                    // Large: it goes out of its own array, so it is cut to size and not kept.
                    buffer.removeSubrange(count...)
                    return MessageSegments(consume buffer)
                case .segments(let kept):
                    return MessageSegments(kept.first, rest: kept.rest)
                }
            }
            if let segments = try segmentingCodec?.encodeMethodCallSegments(MethodCall(method, arguments: arguments)) {
                // Optional chaining calls the codec in place; `if let` would copy the optional
                // existential through the runtime's value witnesses.
                return MessageSegments(segments.first, rest: segments.rest)
            }
            return MessageSegments(try codec.encodeMethodCall(MethodCall(method, arguments: arguments)))
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
        _ method: String, _ request: consuming MessageSegments, pooledCount: Int?,
        on connection: MessengerConnection
    ) async throws -> ReceivedPayload? {
        do {
            var segments = consume request
            let prepared = try connection.prepareRequest(onChannel: name, payloadCount: pooledCount ?? segments.count)
            if prepared.mustWaitForRoom { await connection.waitUntilWritable() }
            // The continuations are made where this call runs, without the hop to an isolation
            // parameter that `withUnsafeThrowingContinuation(isolation:)` makes first (another
            // status-record lock per call); the closures only hand them to the connection.
            if prepared.scopeTask != 0, connection.canDriveReader {
                // On the reader thread with nothing else for it to do: read the reply here
                // instead of suspending (`MessengerConnection+DrivenCalls`).
                switch try connection.startDrivenRequest(
                    prepared, onChannel: name, segments: Self.take(&segments),
                    firstCount: pooledCount)
                {
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
                        prepared, onChannel: name, segments: Self.take(&segments),
                        firstCount: pooledCount, continuation: continuation)
                }
            }
            return try await withTaskCancellationHandler {
                // Safe: resumed exactly once by the connection (`startRequest`).
                try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                    connection.startRequest(
                        prepared, onChannel: name, segments: Self.take(&segments),
                        firstCount: pooledCount, continuation: continuation)
                }
            } onCancel: {
                connection.cancelRequest(prepared.id)
            }
        } catch let error as MessengerError {
            // The messenger sees only bytes; the channel reports the failure, naming the method.
            throw ChannelError(error, channel: name, method: method)
        }
    }

    /// `segments`, leaving it empty: the call's request moves into the connection, which lends
    /// its buffer for the reply, so that the caller's frame keeps no reference to it (one would
    /// make the reply's write into it copy the buffer).
    static func take(_ segments: inout MessageSegments) -> MessageSegments {
        var taken = MessageSegments([])
        swap(&taken, &segments)
        return taken
    }

    /// The result the reply carries, or the error it carries or is.
    @inline(__always)
    func decodeReply(_ reply: ReceivedPayload, method: String) throws -> StandardValue {
        let envelope: MethodEnvelope
        do {
            switch reply {
            case .bytes(let bytes) where isStandard:
                envelope = try standardCodec.decodeEnvelope(bytes)
            case .bytes(let bytes):
                envelope = try codec.decodeEnvelope(bytes)
            case .split(let head, let tail):
                // Only Standard channels ask for split replies; the list is the tail, uncopied.
                envelope = try standardCodec.decodeEnvelope(head: head, tail: tail)
            case .inBuffer(let buffer, let count):
                // The reply came back in the encode buffer this call lent (only Standard channels
                // lend one), which then goes back for the next call.
                defer { encodeBuffers.giveBack(buffer) }
                envelope = try buffer.withUnsafeBytes { raw in
                    Result { () throws(CodecError) in
                        try standardCodec.decodeEnvelope(in: UnsafeRawBufferPointer(rebasing: raw[..<count]))
                    }
                }.get()
            }
        } catch {
            throw ChannelError(
                .malformedReply, "Cannot decode the reply: \(error)", channel: name, method: method,
                codecError: error)
        }
        return try envelope.get()
    }
}
