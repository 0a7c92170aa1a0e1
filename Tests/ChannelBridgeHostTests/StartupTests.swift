import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Testing

/// Starting, refusing to start, and the options that shape the process.
@Suite struct StartupTests {
    @Test func anUnknownPluginNameStopsTheStartListingTheKnownOnes() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let exit = await
                (try HostProcess([
                    "--socket", directory.socket, "--data-dir", directory.data,
                    "--plugin", "SharedPreferenceAppGroupPlugin", "--plugin", "PathProviderPlugin",
                ]))
                .waitForExit()
            #expect(exit.status == 1)
            #expect(exit.stdoutLines.isEmpty)
            #expect(
                exit.stderr == "extension-host: --plugin PathProviderPlugin: No plugin named 'PathProviderPlugin'; "
                    + "known plugins: SharedPreferenceAppGroupPlugin\n")
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
        }
    }

    @Test(arguments: [
        (["--bogus"], "extension-host: unknown option --bogus"),
        (["--socket"], "extension-host: --socket needs a value"),
        (
            ["--deadline", "soon"],
            #"extension-host: --deadline needs a number of seconds above 0 (at most a year), not "soon""#
        ),
        (
            ["--deadline", "0"],
            #"extension-host: --deadline needs a number of seconds above 0 (at most a year), not "0""#
        ),
        (["--open-url", "maybe"], #"extension-host: --open-url takes allow or deny, not "maybe""#),
        (
            ["--max-frame-bytes", "-1"],
            #"extension-host: --max-frame-bytes needs a whole number from 16 to 4294967295, not "-1""#
        ),
        (["--app-group", "a/b"], #"extension-host: --app-group: invalid app group name "a/b": it contains '/'"#),
        (
            ["--items", "i.json", "--text", "t"],
            "extension-host: --items cannot be combined with --text, --url or --file: describe every item in the file"
        ),
        (["stray"], #"extension-host: unexpected argument "stray": the host takes options only"#),
        (["--trace=yes"], "extension-host: --trace takes no value"),
    ])
    func usageErrorsExitSixtyFourWithAMessage(arguments: [String], message: String) async throws {
        try await withHangGuard {
            let exit = await (try HostProcess(arguments)).waitForExit()
            #expect(exit.status == 64)
            #expect(exit.stdoutLines.isEmpty)
            #expect(exit.stderr == message + "\nRun 'extension-host --help' for the options.\n")
        }
    }

    @Test func helpPrintsTheOptionsAndExitsZero() async throws {
        try await withHangGuard {
            let exit = await (try HostProcess(["--help"])).waitForExit()
            #expect(exit.status == 0)
            #expect(exit.stdoutLines.first == "usage: extension-host [options]")
            for option in [
                "--socket", "--max-frame-bytes", "--data-dir", "--app-group", "--channel", "--title",
                "--content-text", "--text", "--url", "--file", "--items", "--share-key", "--info-plist",
                "--deadline", "--open-url", "--plugin", "--echo", "--trace", "--help",
            ] {
                #expect(exit.stdoutLines.contains { $0.hasPrefix("  \(option) ") }, "\(option) is not listed")
            }
        }
    }

    @Test func aSecondHostOnALiveSocketFailsWithAClearError() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let first = try await HostTesting.start(directory)
            let second = await
                (try HostProcess([
                    "--socket", directory.socket, "--data-dir", directory.data,
                    "--share-key", "ShareKey", "--text", "must not be written",
                ])).waitForExit()
            #expect(second.status == 1)
            #expect(second.stdoutLines.isEmpty)
            #expect(second.stderr.hasPrefix("extension-host: cannot listen on \(directory.socket): "))
            #expect(second.stderr.contains("another host is serving this socket"))
            #expect(second.stderr.hasSuffix("(addressInUse)\n"))
            // The failed host wrote nothing, and the first one still serves.
            #expect(!FileManager.default.fileExists(atPath: directory.preferencesFile("group.local")))
            let connection = try await HostTesting.connect(directory)
            #expect(try await HostTesting.methods(connection).invokeMethod("exit") == .null)
            #expect(await first.waitForExit().status == 0)
        }
    }

    /// A `--socket` directory another user controls (here uid 12345, mode 0777): the host refuses
    /// it before creating anything there, exit status 1 as for any failure to bind.
    @Test(.enabled(if: geteuid() == 0)) func aSocketDirectoryOfAnotherUserStopsTheStart() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socketDirectory = directory.path + "/run"
        #expect(mkdir(socketDirectory, 0o700) == 0)
        #expect(chmod(socketDirectory, 0o777) == 0)
        #expect(chown(socketDirectory, 12345, 12345) == 0)
        let socket = socketDirectory + "/h.sock"
        try await withHangGuard {
            let exit = await
                (try HostProcess([
                    "--socket", socket, "--data-dir", directory.data,
                    "--share-key", "ShareKey", "--text", "must not be written",
                ])).waitForExit()
            #expect(exit.status == 1)
            #expect(exit.stdoutLines.isEmpty)
            #expect(
                exit.stderr == "extension-host: cannot listen on \(socket): the socket directory \(socketDirectory) "
                    + "(owner uid 12345, mode 0777) is owned by neither this user (uid 0) nor root, and is writable by "
                    + "others without the sticky bit; remove it or use a socket path in a directory only this user "
                    + "can write to (unsafeDirectory)\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: socketDirectory).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: directory.preferencesFile("group.local")))
        }
    }

    /// The default directory made beforehand by another user, open to everyone.
    @Test(.enabled(if: geteuid() == 0)) func aDefaultSocketDirectoryOfAnotherUserStopsTheStart() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let socketDirectory = directory.path + "/run/channelbridge"
        #expect(mkdir(directory.path + "/run", 0o700) == 0)
        #expect(mkdir(socketDirectory, 0o700) == 0)
        #expect(chmod(socketDirectory, 0o777) == 0)
        #expect(chown(socketDirectory, 12345, 12345) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path + "/run"
        let hostEnvironment = environment
        try await withHangGuard {
            let exit = await (try HostProcess(["--data-dir", directory.data], environment: hostEnvironment))
                .waitForExit()
            #expect(exit.status == 1)
            #expect(exit.stdoutLines.isEmpty)
            #expect(
                exit.stderr == "extension-host: cannot listen on \(socketDirectory)/extension-host.sock: the socket "
                    + "directory \(socketDirectory) (owner uid 12345, mode 0777) is not owned by this user (uid 0), and "
                    + "is writable by others; remove it or set XDG_RUNTIME_DIR (unsafeDirectory)\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: socketDirectory).isEmpty)
        }
    }

    @Test func withNoOptionsTheReadyLineShowsTheDefaultSocketPath() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = directory.path + "/run"
            environment["XDG_DATA_HOME"] = directory.path + "/share"
            let host = try HostProcess(["--share-key", "K", "--text", "t"], environment: environment)
            let socket = directory.path + "/run/channelbridge/extension-host.sock"
            #expect(try await host.readyLine() == "ready \(socket)")
            // The default data directory and group were used for the share key.
            #expect(
                FileManager.default.fileExists(
                    atPath: directory.path + "/share/channelbridge/app-groups/group.local/preferences.json"))
            let connection = try await SocketConnection.connect(to: socket, options: HostTesting.clientOptions)
            _ = try await MethodChannel(name: "channelbridge/extension", messenger: connection.messenger).invokeMethod(
                "exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0)
            #expect(exit.stdoutLines.count == 2)
            #expect(!FileManager.default.fileExists(atPath: socket))
        }
    }

    @Test func traceLogsEveryCallDecodedToStandardError() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--trace", "--text", "hi"])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            _ = try await prefs.invokeMethod("setInt", arguments: HostTesting.map(["key": "n", "value": .int32(5)]))
            _ = try? await prefs.invokeMethod("getString", arguments: HostTesting.map(["key": "n"]))
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0)
            let lines = exit.stderr.split(separator: "\n").map(String.init)
            let expected = [
                #"[session 1] call shared_preference_app_group setInt {"map":[["key","n"],["value",{"int32":5}]]}"#,
                #"[session 1] reply shared_preference_app_group setInt {"map":[["key","n"],["value",{"int32":5}]]} → success null"#,
                #"[session 1] call shared_preference_app_group getString {"map":[["key","n"]]}"#,
                "[session 1] call channelbridge/extension exit null",
                "[session 1] reply channelbridge/extension exit null → success null",
            ]
            for line in expected {
                #expect(lines.contains("extension-host: " + line), "missing trace line: \(line)\n\(exit.stderr)")
            }
            #expect(
                lines.contains {
                    $0.hasPrefix("extension-host: [session 1] reply shared_preference_app_group getString")
                        && $0.contains("→ error WRONG_TYPE: getString: the value of key 'n' is int (int32), not String")
                })
        }
    }

    @Test func maxFrameBytesLimitsWhatTheHostAccepts() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--max-frame-bytes", "64", "--echo"])
            let client = try RawClient(path: directory.socket)
            defer { client.closeSocket() }
            // A 100-byte echo request: its frame is over 64 bytes.
            try client.write(
                RawClient.hello()
                    + RawClient.request(
                        id: 1, channel: "channelbridge/echo",
                        payload: [UInt8](repeating: 7, count: 100)))
            let frames = await client.readUntilClosed()
            #expect(frames.first == .hello(role: 1))
            guard case .goodbye(let code, _)? = frames.last else {
                Issue.record("no GOODBYE: \(frames)")
                return
            }
            #expect(code == 3)
            // The host itself goes on.
            let connection = try await HostTesting.connect(directory)
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }
}
