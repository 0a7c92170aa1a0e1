import Glibc

/// The file of the running program, for executables that start their siblings or themselves.
///
/// `CommandLine.arguments[0]` is only what the program was started as: a bare name when a shell
/// found it through `PATH` (`channelbridge demo`), which names a file only in the directory that
/// happens to be current. The kernel's `/proc/self/exe` names the file itself, however it was started.
package enum OwnExecutable {
    /// The absolute path of the running executable, symbolic links resolved; `fallback` (the
    /// command line's first argument) when `/proc` cannot tell.
    package static func path(fallback: String = CommandLine.arguments.first ?? "") -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return fallback }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
