import ChannelBridgeHost
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The sandbox of a Flutter-style host is named as `Bundle.main` is: by the `Info.plist` beside the
/// executable unless `--bundle-identifier` says otherwise, and a disagreement is warned about.
@Suite struct MainBundleInfoTests {
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>CFBundleName</key>
            <string>Share</string>
            <key>CFBundleIdentifier</key>
            <string>com.example.app.share</string>
        </dict>
        </plist>
        """

    @Test func theIdentifierIsReadFromTheInfoPlistBesideTheExecutable() async throws {
        try await TestDirectory.withPath { directory in
            #expect(MainBundleInfo.besideExecutable(directory + "/host") == nil)
            try Self.plist.write(toFile: directory + "/Info.plist", atomically: true, encoding: .utf8)
            #expect(
                MainBundleInfo.besideExecutable(directory + "/host")
                    == MainBundleInfo(path: directory + "/Info.plist", identifier: "com.example.app.share"))
            try "not a property list".write(toFile: directory + "/Info.plist", atomically: true, encoding: .utf8)
            #expect(MainBundleInfo.besideExecutable(directory + "/host") == nil)
        }
    }

    @Test func theOptionWinsAndADisagreementIsWarnedAbout() throws {
        let main = MainBundleInfo(path: "/opt/host/Info.plist", identifier: "com.example.app.share")
        guard case .run(let defaults) = try HostOptions.parse([]),
            case .run(let given) = try HostOptions.parse(["--bundle-identifier", "com.example.other"]),
            case .run(let same) = try HostOptions.parse(["--bundle-identifier", "com.example.app.share"])
        else {
            Issue.record("not a run")
            return
        }
        #expect(ExtensionHostCommand.sandboxName(defaults, main: nil) == ("local.extension", nil))
        #expect(ExtensionHostCommand.sandboxName(defaults, main: main) == ("com.example.app.share", nil))
        #expect(ExtensionHostCommand.sandboxName(same, main: main) == ("com.example.app.share", nil))
        #expect(
            ExtensionHostCommand.sandboxName(given, main: main)
                == (
                    "com.example.other",
                    "--bundle-identifier com.example.other differs from the CFBundleIdentifier "
                        + "com.example.app.share of /opt/host/Info.plist, which Bundle.main.bundleIdentifier answers"
                ))
    }
}
