import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// The directory holding the socket is checked by the listener before binding and by the client
/// before connecting (`SocketPath.checkDirectory`). The tests run as root, so "another user" is an
/// unused uid given with `chown`.
@Suite(.enabled(if: geteuid() == 0)) struct SocketDirectoryCheckTests {
    static let otherUID: uid_t = 12345
    static let explicitAdvice = "remove it or use a socket path in a directory only this user can write to"

    /// Makes `path` a directory with exactly `mode`, owned by `owner`.
    static func makeDirectory(_ path: String, mode: mode_t, owner: uid_t = geteuid()) throws {
        try #require(mkdir(path, 0o700) == 0, "mkdir \(path): errno \(errno)")
        try #require(chmod(path, mode) == 0, "chmod \(path): errno \(errno)")
        try #require(chown(path, owner, owner) == 0, "chown \(path): errno \(errno)")
    }

    static func listenerError(_ path: String) -> SocketError? {
        #expect(throws: SocketError.self) {
            let listener = try SocketListener(path: path) { _ in }
            listener.close()
        }
    }

    static func connectError(_ path: String) async -> SocketError? {
        await #expect(throws: SocketError.self) {
            let connection = try await SocketConnection.connect(to: path, options: .forTests)
            connection.close()
        }
    }

    /// A live host's directory taken over by another user (owner changed, opened to everyone):
    /// neither a new listener nor a client uses it.
    @Test func aForeignWorldWritableDirectoryIsRefusedByListenerAndClient() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let socketDirectory = directory.path + "/run"
            try Self.makeDirectory(socketDirectory, mode: 0o700)
            let path = socketDirectory + "/host.sock"
            let listener = try SocketListener(path: path) { _ in }
            #expect(chown(socketDirectory, Self.otherUID, Self.otherUID) == 0)
            #expect(chmod(socketDirectory, 0o777) == 0)
            let message =
                "the socket directory \(socketDirectory) (owner uid 12345, mode 0777) is owned by neither "
                + "this user (uid 0) nor root, and is writable by others without the sticky bit; " + Self.explicitAdvice
            let refused = await Self.connectError(path)
            #expect(refused?.code == .unsafeDirectory)
            #expect(refused?.message == message)
            #expect(refused?.path == path)
            listener.close()
            await listener.waitUntilClosed()
            let second = Self.listenerError(path)
            #expect(second?.code == .unsafeDirectory)
            #expect(second?.message == message)
            #expect(second?.description == "unsafeDirectory: \(message) (\(path))")
            #expect(access(path, F_OK) != 0)  // not bound again
        }
    }

    @Test func aForeignDirectoryIsRefusedEvenWhenOnlyItsOwnerCanWrite() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let socketDirectory = directory.path + "/run"
            try Self.makeDirectory(socketDirectory, mode: 0o700, owner: Self.otherUID)
            let path = socketDirectory + "/host.sock"
            let message =
                "the socket directory \(socketDirectory) (owner uid 12345, mode 0700) is owned by neither "
                + "this user (uid 0) nor root; " + Self.explicitAdvice
            #expect(Self.listenerError(path)?.message == message)
            #expect(await Self.connectError(path)?.message == message)
            #expect(access(path + ".lock", F_OK) != 0)
        }
    }

    @Test func aSymbolicLinkAsTheSocketDirectoryIsRefused() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            try Self.makeDirectory(directory.path + "/real", mode: 0o700)
            let socketDirectory = directory.path + "/link"
            #expect(symlink(directory.path + "/real", socketDirectory) == 0)
            let path = socketDirectory + "/host.sock"
            let message =
                "the socket directory \(socketDirectory) is a symbolic link, not a directory; " + Self.explicitAdvice
            let error = Self.listenerError(path)
            #expect(error?.code == .unsafeDirectory)
            #expect(error?.message == message)
            #expect(await Self.connectError(path)?.message == message)
            #expect(access(directory.path + "/real/host.sock.lock", F_OK) != 0)
        }
    }

    @Test func aGroupWritableDirectoryOfOurOwnIsRefused() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let socketDirectory = directory.path + "/run"
            try Self.makeDirectory(socketDirectory, mode: 0o770)
            let message =
                "the socket directory \(socketDirectory) (owner uid 0, mode 0770) is writable by others "
                + "without the sticky bit; " + Self.explicitAdvice
            #expect(Self.listenerError(socketDirectory + "/host.sock")?.message == message)
        }
    }

    @Test(arguments: [
        (0o700 as mode_t, 0 as uid_t),  // our own, private
        (0o755, 0),  // our own, readable by others
        (0o1777, 0),  // like /tmp: sticky and world-writable, owned by root
    ])
    func aDirectoryOnlyWeOrRootControlIsUsed(mode: mode_t, owner: uid_t) async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let socketDirectory = directory.path + "/run"
            try Self.makeDirectory(socketDirectory, mode: mode, owner: owner)
            let path = socketDirectory + "/host.sock"
            let listener = try SocketListener(path: path) {
                $0.messenger.setMessageHandler(onChannel: "who") { _ in [7] }
            }
            let client = try await SocketConnection.connect(to: path, options: .forTests)
            #expect(try await client.messenger.send(onChannel: "who", message: nil) == [7])
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// `/tmp` (root's, sticky, world-writable) and `/` (root's, 0755) pass for any user.
    @Test func aSocketDirectlyInTmpOrTheRootIsUsed() throws {
        for uid in [geteuid(), Self.otherUID] {
            try SocketPath.checkDirectory(of: "/tmp/cb-directory-check.sock", environment: [:], uid: uid)
            try SocketPath.checkDirectory(of: "/cb-directory-check.sock", environment: [:], uid: uid)
        }
    }

    @Test func aStickyWorldWritableDirectoryOfAnotherUserIsRefused() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let socketDirectory = directory.path + "/run"
            try Self.makeDirectory(socketDirectory, mode: 0o1777, owner: Self.otherUID)
            let message =
                "the socket directory \(socketDirectory) (owner uid 12345, mode 01777) is owned by neither "
                + "this user (uid 0) nor root; " + Self.explicitAdvice
            #expect(Self.listenerError(socketDirectory + "/host.sock")?.message == message)
        }
    }

    /// The default directory is the host's own: neither the sticky exception nor a root owner
    /// (for another user) makes it acceptable.
    @Test func theDefaultDirectoryMustBeOwnedAndPrivate() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let environment = ["XDG_RUNTIME_DIR": directory.path]
        let socketDirectory = directory.path + "/channelbridge"
        let path = SocketPath.defaultPath(environment: environment)
        #expect(path == socketDirectory + "/extension-host.sock")
        try SocketPath.checkDirectory(of: path, environment: environment)  // missing: nothing to check
        try Self.makeDirectory(socketDirectory, mode: 0o1777)
        #expect(
            throws: SocketError(
                .unsafeDirectory,
                "the socket directory \(socketDirectory) (owner uid 0, mode 01777) "
                    + "is writable by others; remove it or set XDG_RUNTIME_DIR", path: path)
        ) {
            try SocketPath.checkDirectory(of: path, environment: environment)
        }
        #expect(chmod(socketDirectory, 0o700) == 0)
        try SocketPath.checkDirectory(of: path, environment: environment)
        // Root-owned is not enough for another user's default directory.
        let otherPath = SocketPath.defaultPath(environment: environment, uid: Self.otherUID)
        #expect(
            throws: SocketError(
                .unsafeDirectory,
                "the socket directory \(socketDirectory) (owner uid 0, mode 0700) "
                    + "is not owned by this user (uid 12345); remove it or set XDG_RUNTIME_DIR",
                path: otherPath)
        ) {
            try SocketPath.checkDirectory(of: otherPath, environment: environment, uid: Self.otherUID)
        }
        // The same directory, named explicitly by that user, is root's: accepted.
        try SocketPath.checkDirectory(of: socketDirectory + "/other.sock", environment: [:], uid: Self.otherUID)
    }
}
