import ChannelBridgeTestSupport
import ChannelBridgeHost
import ChannelBridgeSocket
import ChannelBridgeStore
import Testing

@Suite struct HostOptionsTests {
    @Test func noArgumentsGiveTheDefaults() throws {
        let command = try HostOptions.parse([])
        guard case .run(let options) = command else { Issue.record("\(command)"); return }
        #expect(options.socketPath == SocketPath.defaultPath())
        #expect(options.dataDirectory == AppGroupStore.defaultDataDirectory())
        #expect(options.appGroups == ["group.local"])
        #expect(options.bundleIdentifier == "local.extension")
        #expect(options.channel == "channelbridge/extension")
        #expect(options.inputs.isEmpty && options.itemsFile == nil && options.shareKey == nil)
        #expect(options.deadline == nil && !options.allowsOpenURL && !options.trace && !options.echo)
        #expect(options.plugins == nil && options.maxFrameBytes == nil)
        #expect(options.maxConnections == 128 && options.maxHandlersInFlight == 64)
        #expect(options.outboundHighWater == 4 << 20 && options.outboundLowWater == 1 << 20)
        #expect(options.helloTimeout == .seconds(5))
        #expect(options.shutdownTimeout == .seconds(5))
        #expect(options.isolation == nil)
    }

    @Test func isolationIsSessionOrNone() throws {
        for (text, expected) in [("session", HostIsolation.session), ("none", .none)] {
            guard case .run(let options) = try HostOptions.parse(["--isolation", text]) else {
                Issue.record("not a run")
                return
            }
            #expect(options.isolation == expected, "--isolation \(text)")
        }
        #expect {
            try HostOptions.parse(["--isolation", "process"])
        } throws: { error in
            (error as? HostError)?.message
                == """
                extension-host: --isolation needs session or none, not "process"
                Run 'extension-host --help' for the options.
                """
        }
        #expect(HostOptions.usageText.contains("--isolation session|none"))
    }

    @Test func theBundleIdentifierIsOneDirectoryName() throws {
        guard case .run(let options) = try HostOptions.parse(["--bundle-identifier", "com.example.app.share"]) else {
            Issue.record("not a run")
            return
        }
        #expect(options.bundleIdentifier == "com.example.app.share")
        #expect {
            try HostOptions.parse(["--bundle-identifier", "a/b"])
        } throws: { error in
            (error as? HostError)?.message
                == """
                extension-host: --bundle-identifier: invalid bundle identifier "a/b": it contains '/'
                Run 'extension-host --help' for the options.
                """
        }
    }

    @Test func theShutdownTimeoutIsReadInSecondsFromZeroTo3600() throws {
        for (text, expected) in [("0", Duration.zero), ("0.25", .milliseconds(250)), ("3600", .seconds(3600))] {
            guard case .run(let options) = try HostOptions.parse(["--shutdown-timeout", text]) else {
                Issue.record("not a run")
                return
            }
            #expect(options.shutdownTimeout == expected, "--shutdown-timeout \(text)")
        }
        #expect(HostOptions.usageText.contains("--shutdown-timeout SECONDS"))
    }

    @Test func flowControlLimitsAreRead() throws {
        let command = try HostOptions.parse([
            "--max-connections", "3", "--max-handlers=2", "--outbound-high-water", "65536",
            "--outbound-low-water", "1000", "--hello-timeout", "0.25", "--frame-timeout", "1.5",
        ])
        guard case .run(let options) = command else { Issue.record("\(command)"); return }
        #expect(options.maxConnections == 3 && options.maxHandlersInFlight == 2)
        #expect(options.outboundHighWater == 65536 && options.outboundLowWater == 1000)
        #expect(options.helloTimeout == .milliseconds(250))
        #expect(options.frameTimeout == .milliseconds(1500))
        // A high-water mark alone brings the low-water mark down to a quarter of it; 0 s waits for ever.
        guard
            case .run(let alone) = try HostOptions.parse([
                "--outbound-high-water", "65536", "--hello-timeout", "0",
                "--frame-timeout", "0",
            ])
        else {
            Issue.record("not a run")
            return
        }
        #expect(alone.outboundLowWater == 16384)
        #expect(alone.helloTimeout == nil)
        #expect(alone.frameTimeout == nil)
        #expect(HostOptions().frameTimeout == .seconds(10))
    }

    @Test func everyOptionIsRead() throws {
        let command = try HostOptions.parse([
            "--socket", "/tmp/x.sock", "--max-frame-bytes", "1024", "--title", "T", "--content-text=C",
            "--data-dir", "/tmp/d", "--app-group", "group.a", "--app-group=group.b", "--app-group", "group.a",
            "--channel", "my/ext", "--text", "one", "--url", "https://u", "--file", "/f.png", "--text", "",
            "--share-key", "ShareKey", "--info-plist", "/I.plist", "--deadline", "2.5", "--open-url", "allow",
            "--trace", "--echo", "--plugin", "P", "--plugin", "Q",
        ])
        var expected = HostOptions(
            socketPath: "/tmp/x.sock", maxFrameBytes: 1024, title: "T", contentText: "C",
            dataDirectory: "/tmp/d", appGroups: ["group.a", "group.b"], channel: "my/ext",
            inputs: [.text("one"), .url("https://u"), .file("/f.png"), .text("")],
            shareKey: "ShareKey", infoPlist: "/I.plist", deadline: .milliseconds(2500),
            allowsOpenURL: true, trace: true, echo: true, plugins: ["P", "Q"])
        #expect(command == .run(expected))
        expected.appGroups = ["group.b"]
        #expect(expected.primaryAppGroup == "group.b")
    }

    @Test func theRequestBudgetIsOneSharedByteCount() throws {
        #expect(HostOptions().requestBudget == 256 << 20)
        guard case .run(let options) = try HostOptions.parse(["--request-budget", "1048576"]) else {
            Issue.record("not a run")
            return
        }
        #expect(options.requestBudget == 1_048_576)
    }

    @Test func helpWinsWhereverItIs() throws {
        #expect(try HostOptions.parse(["--text", "x", "-h"]) == .help)
        #expect(try HostOptions.parse(["--help", "--bogus"]) == .help)
    }

    @Test(arguments: [
        ["--items", "i.json", "--url", "u"], ["--items", "i.json", "--title", "t"], ["--items", "a", "--items", "b"],
        ["--echo", "--channel", "channelbridge/echo"], ["--socket", ""], ["--max-frame-bytes", "8"],
        ["--deadline", "nan"], ["--deadline", "-1"], ["--app-group", ".."], ["--plugin", ""], ["-x"],
        ["--max-connections", "0"], ["--max-handlers", "x"], ["--outbound-high-water", "0"],
        ["--outbound-high-water", "100", "--outbound-low-water", "200"], ["--hello-timeout", "-1"],
        ["--hello-timeout", "nan"],
        ["--frame-timeout", "-1"], ["--frame-timeout", "3601"], ["--frame-timeout"],
        ["--shutdown-timeout", "-0.5"], ["--shutdown-timeout", "3600.5"], ["--shutdown-timeout", "inf"],
        ["--shutdown-timeout"], ["--request-budget", "0"], ["--request-budget", "1e9"],
    ])
    func malformedCommandLinesAreUsageErrors(arguments: [String]) {
        #expect(throws: HostError.self) { try HostOptions.parse(arguments) }
        do {
            _ = try HostOptions.parse(arguments)
        } catch {
            #expect(error.code == .usage && error.exitStatus == 64)
            #expect(error.message.hasPrefix("extension-host: "))
        }
    }

    /// How the host reads a command line (`CommandLineReader`, shared with the CLI): what each
    /// kind of argument it does not take is called.
    @Test(arguments: [
        (["-x"], "unknown option -x"), (["--"], "unknown option --"), (["--bogus=1"], "unknown option --bogus"),
        (["-x=1"], "unknown option -x=1"), (["--=1"], "unknown option --"),
        (["stray"], #"unexpected argument "stray": the host takes options only"#),
        (["-"], #"unexpected argument "-": the host takes options only"#),
        (["--trace=1"], "--trace takes no value"), (["--socket"], "--socket needs a value"),
        (["--socket="], "--socket needs a non-empty value"), (["--text", "--url", "--url"], "--url needs a value"),
    ])
    func theCommandLinesWordsAreNamedAsGiven(arguments: [String], problem: String) {
        do {
            _ = try HostOptions.parse(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(error.message == "extension-host: \(problem)\nRun 'extension-host --help' for the options.")
        }
    }
}
