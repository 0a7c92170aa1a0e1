public import Foundation
import Glibc

/// A pipe whose two descriptors are close-on-exec from the moment they exist (`pipe2(O_CLOEXEC)`),
/// for the standard streams of a child process a test starts.
///
/// Foundation's `Pipe` makes inheritable descriptors, and on Linux `Process` closes the inherited
/// ones in the child only up to the highest descriptor open when it looked. A pipe another test makes
/// at that moment leaks into the child, which then holds it open for its whole life: a reader waiting
/// for end of file on it waits for that unrelated child (a host serving another test), and a test
/// blocked on that can stall the whole run.
///
/// Give the child's end to `Process` and close it here once the child is running, as Foundation
/// does for a `Pipe`:
///
/// ```swift
/// let output = try CloseOnExecPipe()
/// process.standardOutput = output.fileHandleForWriting
/// try ProcessRunner.start(process)
/// try output.fileHandleForWriting.close()
/// let text = output.fileHandleForReading.readDataToEndOfFile()
/// ```
public struct CloseOnExecPipe: Sendable {
    public struct CreationFailed: Error, CustomStringConvertible {
        public var description: String
    }

    public let fileHandleForReading: FileHandle
    public let fileHandleForWriting: FileHandle

    public init() throws {
        guard let pipe2 = Self.pipe2 else { throw CreationFailed(description: "pipe2 is not available") }
        var descriptors: [Int32] = [-1, -1]
        guard pipe2(&descriptors, O_CLOEXEC) == 0 else {
            throw CreationFailed(description: "pipe2: errno \(errno)")
        }
        fileHandleForReading = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true)
        fileHandleForWriting = FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true)
    }

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32

    /// `pipe2` is behind `_GNU_SOURCE`, which the Glibc module does not define: looked up at run time.
    private static let pipe2: Pipe2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2")
        .map { unsafeBitCast($0, to: Pipe2.self) }
}
