@testable import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The store's file reader (`FileSystem.openAndRead`) fed whatever another process could leave at
/// `preferences.json`: it returns the bytes of a regular file of at most the maximum size, `nil`
/// for no file, and otherwise a typed error naming the file, at once, without following a link
/// or holding more than the maximum in memory.
@Suite struct FileReaderPropertyTests {
    enum Planted: CustomStringConvertible {
        case none
        case regular(size: Int)
        case fifo
        case directory
        case symlinkToRegular(size: Int)
        case symlinkToDevZero
        case danglingSymlink

        var description: String {
            switch self {
            case .none: "no file"
            case .regular(let size): "a regular file of \(size) bytes"
            case .fifo: "a FIFO"
            case .directory: "a directory"
            case .symlinkToRegular(let size): "a symlink to a regular file of \(size) bytes"
            case .symlinkToDevZero: "a symlink to /dev/zero"
            case .danglingSymlink: "a dangling symlink"
            }
        }
    }

    static func plant(
        _ planted: Planted, at path: String, in directory: String, using random: inout SeededGenerator
    ) throws
        -> [UInt8]?
    {
        switch planted {
        case .none:
            return nil
        case .regular(let size):
            let bytes = random.bytes(count: size)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return bytes
        case .fifo:
            try #require(mkfifo(path, 0o600) == 0)
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .symlinkToRegular(let size):
            try Data(random.bytes(count: size)).write(to: URL(fileURLWithPath: directory + "/target"))
            try #require(symlink(directory + "/target", path) == 0)
        case .symlinkToDevZero:
            try #require(symlink("/dev/zero", path) == 0)
        case .danglingSymlink:
            try #require(symlink(directory + "/missing", path) == 0)
        }
        return nil
    }

    @Test(arguments: 0..<12)
    func readsOnlyRegularFilesUpToTheMaximum(seed: Int) async throws {
        try await withHangGuard {
            var random = SeededGenerator(seed: UInt64(seed) &+ 0xF11E)
            let directory = try TestDirectory()
            defer { directory.remove() }
            for round in 0..<24 {
                let maximum = [0, 1, 7, 4_095, 4_096, 4_097, 70_000].randomElement(using: &random)!
                let size = max(0, maximum + Int.random(in: -2...2, using: &random))
                let planted: Planted =
                    switch Int.random(in: 0..<7, using: &random) {
                    case 0: .none
                    case 1, 2: .regular(size: size)
                    case 3: .fifo
                    case 4: .directory
                    case 5: [.symlinkToRegular(size: size), .danglingSymlink].randomElement(using: &random)!
                    default: .symlinkToDevZero
                    }
                let roundDirectory = directory.path + "/\(round)"
                try FileManager.default.createDirectory(atPath: roundDirectory, withIntermediateDirectories: false)
                let path = roundDirectory + "/preferences.json"
                let expected = try Self.plant(planted, at: path, in: roundDirectory, using: &random)
                let what = "seed \(seed) round \(round): \(planted), maximum \(maximum)"
                do throws(StoreError) {
                    let opened = try FileSystem.openAndRead(path, what: "preferences file", maximumSize: maximum)
                    if let opened { close(opened.descriptor) }
                    switch planted {
                    case .none: #expect(opened == nil, "\(what)")
                    case .regular(let size) where size <= maximum: #expect(opened?.bytes == expected, "\(what)")
                    default: Issue.record("\(what): read \(opened?.bytes.count ?? -1) bytes")
                    }
                } catch {
                    #expect(error.path == path, "\(what)")
                    #expect(error.message.contains(path), "\(what)")
                    switch planted {
                    case .regular(let size) where size > maximum:
                        #expect(error.code == .fileTooLarge, "\(what): \(error)")
                    case .fifo:
                        #expect(
                            error.code == .notRegularFile && error.message.contains("is a FIFO"), "\(what): \(error)")
                    case .directory:
                        #expect(
                            error.code == .notRegularFile && error.message.contains("is a directory"),
                            "\(what): \(error)")
                    case .symlinkToRegular, .symlinkToDevZero, .danglingSymlink:
                        #expect(
                            error.code == .notRegularFile && error.message.contains("is a symbolic link"),
                            "\(what): \(error)")
                    default:
                        Issue.record("\(what): \(error)")
                    }
                }
            }
        }
    }
}
