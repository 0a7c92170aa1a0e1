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
    package static func recording<Value, Failure: Error>(channel: String, method: String?,
                                                         _ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        var channel = channel
        let outcome = channel.withUTF8 { channelBytes in
            guard var method else { return record(channelBytes, nil, body) }
            return method.withUTF8 { methodBytes in record(channelBytes, methodBytes, body) }
        }
        return try outcome.get()
    }

    private static func record<Value, Failure: Error>(_ channel: UnsafeBufferPointer<UInt8>, _ method: UnsafeBufferPointer<UInt8>?,
                                                      _ body: () throws(Failure) -> Value) -> Result<Value, Failure> {
        var running = cb_running_handler(
            channel: UnsafeRawPointer(channel.baseAddress)?.assumingMemoryBound(to: CChar.self),
            channel_length: channel.count,
            method: method.flatMap { UnsafeRawPointer($0.baseAddress) }?.assumingMemoryBound(to: CChar.self),
            method_length: method?.count ?? 0)
        return withUnsafePointer(to: &running) { pointer in
            let outer = cb_running_handler_exchange(pointer)
            defer { _ = cb_running_handler_exchange(outer) }
            do throws(Failure) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
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
        return (text(record.channel, record.channel_length),
                record.method.map { text($0, record.method_length) })
    }
}
