import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The store's file calls on files another process may have planted: no link followed, no FIFO
/// waited on, no read past its bound.
@Suite struct FileCallsTests {
    /// Opens `path` read-only the plain way (the test's own descriptor).
    func openPlain(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0, "open \(path): errno \(errno)")
        return fd
    }

    @Test func readWholeStopsPastTheMaximumWhateverSizeItExpected() async throws {
        try await TestDirectory.withPath { directory in
            let path = directory + "/file"
            let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let fd = try openPlain(path)
            defer { close(fd) }
            // Expecting fewer bytes than the file has: a file that grew after its `fstat`.
            #expect(FileCalls.readWhole(fd, expectedSize: 10, maximumSize: 10_000) == .success(.bytes(bytes)))
            #expect(FileCalls.readWhole(fd, expectedSize: 10, maximumSize: 9_999) == .success(.tooLarge))
            #expect(FileCalls.readWhole(fd, expectedSize: 10_000, maximumSize: 0) == .success(.tooLarge))
            #expect(FileCalls.readWhole(fd, expectedSize: 0, maximumSize: 50_000) == .success(.bytes(bytes)))
        }
    }

    @Test func readWholeOfAnEndlessFileStopsAtTheMaximum() throws {
        let fd = try openPlain("/dev/zero")
        defer { close(fd) }
        #expect(FileCalls.readWhole(fd, expectedSize: 0, maximumSize: 1 << 20) == .success(.tooLarge))
    }

    @Test func openForReadingFollowsNoLinkAndWaitsForNoWriter() async throws {
        try await withHangGuard {
            try await TestDirectory.withPath { directory in
                let target = directory + "/target"
                try Data("x".utf8).write(to: URL(fileURLWithPath: target))
                try #require(symlink(target, directory + "/link") == 0)
                #expect(FileCalls.openForReading(directory + "/link") == -ELOOP)
                #expect(FileCalls.openLockFileNoFollow(directory + "/link") == -ELOOP)
                try #require(mkfifo(directory + "/fifo", 0o600) == 0)
                let fd = FileCalls.openForReading(directory + "/fifo")
                try #require(fd >= 0)
                defer { FileCalls.close(fd) }
                let status = try FileCalls.status(ofDescriptor: fd).get()
                #expect(!status.isRegularFile)
                #expect(status.typeDescription == "a FIFO")
                #expect(
                    try FileCalls.linkStatus(ofPath: directory + "/link").get().typeDescription == "a symbolic link")
                #expect(try FileCalls.status(ofPath: directory + "/link").get().isRegularFile)
            }
        }
    }

    @Test func createExclusiveNeverOpensWhatIsThere() async throws {
        try await TestDirectory.withPath { directory in
            let target = directory + "/target"
            try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
            try #require(symlink(target, directory + "/link") == 0)
            try #require(symlink(directory + "/missing", directory + "/dangling") == 0)
            #expect(FileCalls.createExclusive(directory + "/link") == -EEXIST)
            #expect(FileCalls.createExclusive(directory + "/dangling") == -EEXIST)
            #expect(FileCalls.createExclusive(target) == -EEXIST)
            #expect(FileManager.default.fileExists(atPath: directory + "/missing") == false)
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("keep".utf8))
            let fd = FileCalls.createExclusive(directory + "/new")
            #expect(fd >= 0)
            if fd >= 0 { FileCalls.close(fd) }
        }
    }
}
