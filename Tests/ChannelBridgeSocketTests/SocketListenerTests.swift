import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// Binding rules: modes, stale files, live sockets, peer credentials.
@Suite struct SocketListenerTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        precondition(lstat(path, &info) == 0, "lstat \(path)")
        return info.st_mode
    }

    @Test func socketFileIs0600AndCreatedDirectoriesAre0700() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/run/channelbridge/host.sock"
            let listener = try SocketListener(path: path) { _ in }
            #expect(Self.mode(path) & S_IFMT == S_IFSOCK)
            #expect(Self.mode(path) & 0o777 == 0o600)
            #expect(Self.mode(directory.path + "/run") & 0o777 == 0o700)
            #expect(Self.mode(directory.path + "/run/channelbridge") & 0o777 == 0o700)
            // An existing directory is left as it is.
            #expect(Self.mode(directory.path) & 0o777 == 0o700)  // mkdtemp's own mode
            listener.close()
            await listener.waitUntilClosed()
            #expect(access(path, F_OK) != 0)  // closing removed the socket file
        }
    }

    @Test func aSecondListenerOnALivePathFailsClearly() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/host.sock"
            let first = try SocketListener(path: path) { $0.messenger.setMessageHandler(onChannel: "who") { _ in [1] } }
            #expect { _ = try SocketListener(path: path) { _ in } } throws: { error in
                let error = error as? SocketError
                return error?.code == .addressInUse && error?.path == path
            }
            // The first one is untouched and still serving.
            let client = try await SocketConnection.connect(to: path, options: .forTests)
            #expect(try await client.messenger.send(onChannel: "who", message: nil) == [1])
            client.close()
            await client.waitUntilClosed()
            first.close()
            await first.waitUntilClosed()
        }
    }

    @Test func aLiveSocketOfAnotherProgramIsNeverTakenOver() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/host.sock"
            let foreign = RawClient.listen(path: path)  // no lock file: only the connect probe can tell
            defer { close(foreign) }
            #expect { _ = try SocketListener(path: path) { _ in } } throws: {
                ($0 as? SocketError)?.code == .addressInUse
            }
            #expect(Self.mode(path) & S_IFMT == S_IFSOCK)
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(probe) }
            #expect(RawClient.connect(fd: probe, path: path) == 0)
        }
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/host.sock"
            close(RawClient.listen(path: path))  // its process is "gone": the file stays, nothing accepts
            #expect(Self.mode(path) & S_IFMT == S_IFSOCK)
            let listener = try SocketListener(path: path) {
                $0.messenger.setMessageHandler(onChannel: "up") { _ in [2] }
            }
            let client = try await SocketConnection.connect(to: path, options: .forTests)
            #expect(try await client.messenger.send(onChannel: "up", message: nil) == [2])
            #expect(Self.mode(path) & 0o777 == 0o600)
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func somethingElseAtThePathIsLeftAlone() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let path = directory.path + "/host.sock"
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8))
        #expect { _ = try SocketListener(path: path) { _ in } } throws: { ($0 as? SocketError)?.code == .notASocket }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
        #expect { _ = try SocketListener(path: "/tmp/" + String(repeating: "p", count: 120)) { _ in } } throws: {
            ($0 as? SocketError)?.code == .invalidPath
        }
    }

    @Test func defaultSocketPath() {
        #expect(
            SocketPath.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
                == "/run/user/1000/channelbridge/extension-host.sock")
        #expect(
            SocketPath.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/7/"], uid: 7)
                == "/run/user/7/channelbridge/extension-host.sock")
        #expect(SocketPath.defaultPath(environment: [:], uid: 1000) == "/tmp/channelbridge-1000/extension-host.sock")
        #expect(
            SocketPath.defaultPath(environment: ["XDG_RUNTIME_DIR": ""], uid: 0)
                == "/tmp/channelbridge-0/extension-host.sock")
    }

    /// The uid check, with the policy injected: this process is refused by its own listener.
    @Test func aRefusedPeerGetsForbiddenAsItsFirstAndOnlyFrame() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let refused = Collector<PeerCredentials>()
            let options = SocketListener.Options(
                connection: .init(acceptPeer: { $0.uid != geteuid() }),
                onRefusedPeer: { refused.append($0) })
            let listener = try SocketListener(path: directory.path + "/host.sock", options: options) { _ in
                Issue.record("a refused peer must not get a session")
            }
            let path = listener.path
            // Raw bytes: exactly one GOODBYE forbidden, no HELLO.
            let reply = await onThread { RawClient.exchange(path: path, bytes: []) }
            let received = try frames(in: try #require(reply))
            #expect(received.count == 1)
            guard case .goodbye(let code, let reason)? = received.first else { Issue.record("\(received)"); return }
            #expect(code == .forbidden)
            #expect(reason.contains("uid \(geteuid())"))
            // Through the client API: the refusal is reported as forbidden.
            let client = try await SocketConnection.connect(to: path, options: .forTests)
            await #expect { try await client.messenger.waitForPeerHello() } throws: {
                ($0 as? MessengerError)?.code == .forbidden
            }
            await client.waitUntilClosed()
            #expect(refused.all.map(\.uid) == [geteuid(), geteuid()])
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aClientRefusesAHostItsPolicyRejects() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let listener = try SocketListener(path: directory.path + "/host.sock") { _ in }
            await #expect {
                try await SocketConnection.connect(to: listener.path, options: .init(acceptPeer: { _ in false }))
            } throws: { ($0 as? SocketError)?.code == .peerNotAccepted }
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A real process of another uid. Needs root (to switch uid) plus `setpriv` and `perl`.
    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/perl")))
    func aProcessOfAnotherUidIsRefused() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let refused = Collector<PeerCredentials>()
            let path = directory.path + "/host.sock"
            let listener = try SocketListener(path: path, options: .init(onRefusedPeer: { refused.append($0) })) { _ in
                Issue.record("uid 65534 must not get a session")
            }
            // With the modes the listener sets, the other uid cannot even reach the socket.
            let blocked = await onThread { OtherUidClient.run(path: path) }
            #expect(blocked.status != 0)
            #expect(blocked.stderr.contains("Permission denied"))
            // Opened up by hand (a misconfiguration), the SO_PEERCRED check still refuses it.
            chmod(directory.path, 0o777)
            chmod(path, 0o777)
            let opened = await onThread { OtherUidClient.run(path: path) }
            #expect(opened.status == 0)
            let received = try frames(in: hex(opened.stdout))
            #expect(received.count == 1)
            if case .goodbye(let code, _)? = received.first {
                #expect(code == .forbidden)
            } else {
                Issue.record("\(received)")
            }
            #expect(refused.all.map(\.uid) == [65534])
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

/// Connects to a socket as uid/gid 65534 in a child process and prints what it read, as hex.
enum OtherUidClient {
    static let script = """
        use Socket;
        socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!\\n";
        connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!\\n";
        my $all = ''; while (1) { my $n = sysread($s, my $chunk, 65536); last if !$n; $all .= $chunk; }
        print unpack("H*", $all);
        """

    /// Blocks its thread for the child's life: called through `onThread`.
    static func run(path: String) -> (status: Int32, stdout: String, stderr: String) {
        let arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/perl", "-e", script, path]
        do {
            let outcome = try ProcessRunner.runBlocking("/usr/bin/setpriv", arguments)
            return (outcome.status, outcome.stdout, outcome.stderr)
        } catch {
            return (-1, "", "\(error)")
        }
    }
}
