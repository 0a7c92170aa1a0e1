import Foundation
import Glibc

/// A fresh directory under /tmp, short enough for a socket path inside it.
struct TestDirectory: Sendable {
    struct CreationFailed: Error, CustomStringConvertible {
        var description: String
    }

    let path: String

    init() throws {
        var template = Array("/tmp/cbb-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw CreationFailed(description: "mkdtemp /tmp/cbb-XXXXXX: errno \(errno)") }
        path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
