import Foundation
import Glibc

/// A pipe whose descriptors close on exec: a child another test starts meanwhile does not inherit
/// them, so this pipe's reader sees end of file as soon as its own writers are gone.
struct CloseOnExecPipe: Sendable {
    struct CreationFailed: Error, CustomStringConvertible {
        var description: String
    }

    let fileHandleForReading: FileHandle
    let fileHandleForWriting: FileHandle

    init() throws {
        guard let pipe2 = Self.pipe2 else { throw CreationFailed(description: "pipe2 is not available") }
        var descriptors: [Int32] = [-1, -1]
        guard pipe2(&descriptors, O_CLOEXEC) == 0 else {
            throw CreationFailed(description: "pipe2: errno \(errno)")
        }
        fileHandleForReading = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true)
        fileHandleForWriting = FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true)
    }

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32

    // `pipe2` sits behind _GNU_SOURCE in Glibc's headers.
    private static let pipe2: Pipe2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2")
        .map { unsafeBitCast($0, to: Pipe2.self) }
}
