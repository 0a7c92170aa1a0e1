import CChannelBridgeSyscalls

/// The channel handler running on this thread, recorded for `FatalSignalReport`: a handler that
/// traps (a force unwrap, a failed `as!`, an index out of range) ends the process with a last line
/// on standard error that names its channel and method.
///
/// The record is a thread-local pointer to the names' bytes on the recording frame: no allocation,
/// no lock, one thread-local exchange on the way in and one on the way out. It is right for
/// handlers that run to completion on the thread that calls them (Flutter-style handlers on their
/// executor); what a handler starts on other threads is not recorded.
package enum RunningHandler {
    /// Runs `body` with `channel` and `method` (`nil` for a message handler) recorded as this
    /// thread's running handler; the handler recorded before (if any) is recorded again after.
    /// Not generic, so that a caller in another module runs it specialized: a value or an error
    /// goes out through the caller's own variables.
    package static func recording(channel: String, method: String?, _ body: () -> Void) {
        var channel = channel
        channel.withUTF8 { channelBytes in
            guard var method else { return record(channelBytes, nil, body) }
            method.withUTF8 { methodBytes in record(channelBytes, methodBytes, body) }
        }
    }

    private static func record(
        _ channel: UnsafeBufferPointer<UInt8>, _ method: UnsafeBufferPointer<UInt8>?,
        _ body: () -> Void
    ) {
        var running = cb_running_handler(
            channel: UnsafeRawPointer(channel.baseAddress)?.assumingMemoryBound(to: CChar.self),
            channel_length: channel.count,
            method: method.flatMap { UnsafeRawPointer($0.baseAddress) }?.assumingMemoryBound(to: CChar.self),
            method_length: method?.count ?? 0)
        withUnsafePointer(to: &running) { pointer in
            let outer = cb_running_handler_exchange(pointer)
            body()
            _ = cb_running_handler_exchange(outer)
        }
    }

    /// The handler recorded on this thread, if any.
    package static var current: (channel: String, method: String?)? {
        let running = cb_running_handler_exchange(nil)
        _ = cb_running_handler_exchange(running)
        guard let running else { return nil }
        func text(_ bytes: UnsafePointer<CChar>?, _ count: Int) -> String {
            guard let bytes else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
        let record = running.pointee
        return (
            text(record.channel, record.channel_length),
            record.method.map { text($0, record.method_length) }
        )
    }
}
