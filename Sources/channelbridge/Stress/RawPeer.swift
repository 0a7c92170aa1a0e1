import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import Foundation

/// A client that writes wire-protocol frames itself over a plain socket and reads only when told
/// to: the misbehaving peers of the stress scenarios (one that never reads, one that never says
/// HELLO, one that vanishes). Blocking calls run on the caller's thread: call it from a thread
/// of its own (`ChildProcess.onThread`), never from the concurrency pool.
// Invariant: `fd` is set once; `input` is touched only by the one thread reading at a time.
final class RawPeer: @unchecked Sendable {
    let fd: Int32
    private var input: [UInt8] = []

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(path: String) throws {
        guard let address = Syscalls.address(for: path) else {
            throw Failure(description: "connect \(path): path too long")
        }
        let fd = Syscalls.newStreamSocket()
        guard fd >= 0 else { throw Failure(description: "socket: \(Syscalls.errorText(Int32(-fd)))") }
        let code = Syscalls.connect(fd, to: address)
        guard code == 0 else {
            Syscalls.closeDescriptor(fd)
            throw Failure(description: "connect \(path): \(Syscalls.errorText(code))")
        }
        self.fd = fd
    }

    static func hello(_ name: String = "channelbridge stress raw peer") -> [UInt8] {
        (try? FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: name)))) ?? []
    }

    static func call(id: UInt32, channel: String, method: String, arguments: StandardValue) throws -> [UInt8] {
        let payload = try StandardMethodCodec().encodeMethodCall(MethodCall(method, arguments: arguments))
        return try FrameEncoder.encode(.request(id: id, channel: channel, payload: payload))
    }

    /// Writes all of `bytes`, blocking while the socket is full. False if the connection failed.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        writeAll(bytes) == nil
    }

    /// Writes all of `bytes`, blocking; nil when written, else why not (the socket's error).
    func writeAll(_ bytes: [UInt8]) -> String? {
        let result = bytes.withUnsafeBytes { Syscalls.sendAll(fd, $0) }
        return result >= 0 ? nil : Syscalls.errorText(Int32(-result))
    }

    /// Writes as much of `bytes[offset...]` as the socket takes now; returns the new offset, or
    /// nil if the connection failed.
    func writeNow(_ bytes: [UInt8], from offset: Int) -> Int? {
        var offset = offset
        while offset < bytes.count {
            let written = Syscalls.sendNow(fd, [bytes][...], firstOffset: offset)
            if written < 0 {
                let code = Int32(-written)
                return code == Errno.EAGAIN || code == Errno.EWOULDBLOCK ? offset : nil
            }
            offset += written
        }
        return offset
    }

    /// Waits up to `milliseconds` for room to write.
    func waitWritable(milliseconds: Int32) {
        _ = Syscalls.waitWritable(fd, milliseconds: milliseconds)
    }

    /// The next frame as (kind, body), or nil at end of file or when `deadline` passes first.
    func readFrame(until deadline: ContinuousClock.Instant) -> (kind: UInt8, body: [UInt8])? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if input.count >= 5 {
                let length = Int(
                    UInt32(input[0]) | UInt32(input[1]) << 8 | UInt32(input[2]) << 16 | UInt32(input[3]) << 24)
                if input.count >= 4 + length, length >= 1 {
                    let frame = (input[4], Array(input[5..<(4 + length)]))
                    input.removeFirst(4 + length)
                    return frame
                }
            }
            let left = deadline - .now
            guard left > .zero else { return nil }
            let milliseconds = Int32(
                min(1000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            guard Syscalls.poll(fd, forInput: true, milliseconds: milliseconds).isReady else { continue }
            let count = chunk.withUnsafeMutableBytes { Syscalls.read(fd, into: $0) }
            if count <= 0 { return nil }
            input += chunk[0..<count]
        }
    }

    /// Reads and drops everything until end of file or `deadline`; true at end of file.
    func readUntilClosed(until deadline: ContinuousClock.Instant) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            guard Syscalls.poll(fd, forInput: true, milliseconds: 50).isReady else { continue }
            let count = chunk.withUnsafeMutableBytes { Syscalls.read(fd, into: $0) }
            if count <= 0 { return true }
        }
    }

    func close() {
        Syscalls.closeDescriptor(fd)
    }
}
