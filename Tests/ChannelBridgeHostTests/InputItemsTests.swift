import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeStore
import Foundation
import Testing

/// Input items given on the command line or in a file, shared files copied into the container,
/// the share key, and the activation rule of an Info.plist, all through a real host process.
@Suite struct InputItemsTests {
    @Test func filesAreCopiedIntoTheFirstGroupsContainerAndItemsPointAtTheCopies() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let photo = try directory.write("in/a/photo.png", "PNG bytes")
            let clip = try directory.write("in/clip.mp4", "MP4 bytes")
            let samePhoto = try directory.write("in/b/photo.png", "other PNG bytes")
            let notes = try directory.write("in/notes.txt", "some notes")
            let host = try await HostTesting.start(
                directory,
                [
                    "--app-group", "group.files", "--app-group", "group.other", "--title", "Holiday",
                    "--file", photo, "--text", "look", "--file", clip, "--file", samePhoto, "--file", notes,
                    "--share-key", "ShareKey",
                ])
            let container = directory.container("group.files")
            let copies = [
                "photo.png": "PNG bytes", "clip.mp4": "MP4 bytes", "photo-2.png": "other PNG bytes",
                "notes.txt": "some notes",
            ]
            for (name, content) in copies {
                #expect(try String(contentsOfFile: container + "/" + name, encoding: .utf8) == content)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: container).sorted() == copies.keys.sorted())
            #expect(!FileManager.default.fileExists(atPath: directory.container("group.other")))

            let connection = try await HostTesting.connect(directory)
            let file = { (type: String, name: String) in
                HostTesting.map([
                    "typeIdentifier": .string(type), "path": .string(container + "/" + name), "name": .string(name),
                ])
            }
            #expect(
                try await HostTesting.methods(connection).invokeMethod("getInputItems")
                    == .list([
                        HostTesting.map([
                            "title": "Holiday",
                            "attachments": .list([
                                file("public.image", "photo.png"),
                                HostTesting.map(["typeIdentifier": "public.plain-text", "text": "look"]),
                                file("public.movie", "clip.mp4"),
                                file("public.image", "photo-2.png"),
                                file("public.file-url", "notes.txt"),
                            ]),
                        ])
                    ]))
            let shared = try await AppGroupStore(dataDirectory: directory.data).group("group.files").value(
                forKey: "ShareKey")
            let url = "file://" + container
            #expect(
                shared
                    == .string(
                        #"{"text":["look"],"files":["#
                            + #"{"path":"\#(url)/photo.png","thumbnail":null,"duration":null,"type":0},"#
                            + #"{"path":"\#(url)/clip.mp4","thumbnail":null,"duration":null,"type":1},"#
                            + #"{"path":"\#(url)/photo-2.png","thumbnail":null,"duration":null,"type":0},"#
                            + #"{"path":"\#(url)/notes.txt","thumbnail":null,"duration":null,"type":2}]}"#))
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func aMissingInputFileStopsTheStart() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try HostProcess([
                "--socket", directory.socket, "--data-dir", directory.data,
                "--file", directory.path + "/absent.png", "--share-key", "ShareKey",
            ])
            let exit = await host.waitForExit()
            #expect(exit.status == 1)
            #expect(exit.stdoutLines.isEmpty)
            #expect(exit.stderr == "extension-host: input file \(directory.path)/absent.png: no such file\n")
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
            #expect(!FileManager.default.fileExists(atPath: directory.data))
        }
    }

    @Test func itemsComeFromAnItemsFile() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            try directory.write("in/media/raw.bin", "movie bytes")
            let itemsFile = try directory.write(
                "in/items.json",
                """
                {"items": [
                  {"title": "A page", "contentText": "worth reading",
                   "attachments": [{"url": "https://example.com/page"}, {"text": "quoted"}]},
                  {"attachments": [{"file": "media/raw.bin", "typeIdentifier": "public.mpeg-4", "name": "clip.mp4"},
                                   {"text": "<b>hi</b>", "typeIdentifier": "public.html"}]}
                ]}
                """)
            let host = try await HostTesting.start(directory, ["--items", itemsFile, "--share-key", "Shared"])
            let connection = try await HostTesting.connect(directory)
            let container = directory.container("group.local")
            #expect(
                try await HostTesting.methods(connection).invokeMethod("getInputItems")
                    == .list([
                        HostTesting.map([
                            "title": "A page", "contentText": "worth reading",
                            "attachments": .list([
                                HostTesting.map(["typeIdentifier": "public.url", "url": "https://example.com/page"]),
                                HostTesting.map(["typeIdentifier": "public.plain-text", "text": "quoted"]),
                            ]),
                        ]),
                        HostTesting.map([
                            "attachments": .list([
                                HostTesting.map([
                                    "typeIdentifier": "public.mpeg-4", "path": .string(container + "/clip.mp4"),
                                    "name": "clip.mp4",
                                ]),
                                HostTesting.map(["typeIdentifier": "public.html", "text": "<b>hi</b>"]),
                            ])
                        ]),
                    ]))
            #expect(try String(contentsOfFile: container + "/clip.mp4", encoding: .utf8) == "movie bytes")
            let shared = try await AppGroupStore(dataDirectory: directory.data).group("group.local").value(
                forKey: "Shared")
            #expect(
                shared
                    == .string(
                        #"{"text":["https://example.com/page","quoted","<b>hi</b>"],"files":[{"path":"file://\#(container)/clip.mp4","thumbnail":null,"duration":null,"type":1}]}"#
                    ))
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func aMalformedItemsFileIsNamedWhereItIsWrong() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let itemsFile = try directory.write(
                "items.json", #"{"items": [{"attachments": [{"text": "ok"}, {"txt": "typo"}]}]}"#)
            let exit = await
                (try HostProcess([
                    "--socket", directory.socket, "--data-dir", directory.data,
                    "--items", itemsFile,
                ])).waitForExit()
            #expect(exit.status == 1)
            #expect(exit.stdoutLines.isEmpty)
            #expect(
                exit.stderr == "extension-host: --items \(itemsFile): items[0].attachments[1]: unknown member \"txt\" "
                    + "(allowed: \"file\", \"name\", \"text\", \"typeIdentifier\", \"url\")\n")
        }
    }

    /// The Info.plist of the originating share extension (seed 000).
    static let seedInfoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
          <dict>
            <key>AppGroupId</key>
            <string>$(CUSTOM_GROUP_ID)</string>
            <key>NSExtension</key>
            <dict>
              <key>NSExtensionAttributes</key>
              <dict>
                <key>PHSupportedMediaTypes</key>
                <array><string>Video</string><string>Image</string></array>
                <key>NSExtensionActivationRule</key>
                <dict>
                  <key>NSExtensionActivationSupportsText</key>
                  <true/>
                  <key>NSExtensionActivationSupportsWebURLWithMaxCount</key>
                  <integer>1</integer>
                  <key>NSExtensionActivationSupportsImageWithMaxCount</key>
                  <integer>100</integer>
                  <key>NSExtensionActivationSupportsMovieWithMaxCount</key>
                  <integer>100</integer>
                  <key>NSExtensionActivationSupportsFileWithMaxCount</key>
                  <integer>1</integer>
                </dict>
              </dict>
              <key>NSExtensionMainStoryboard</key>
              <string>MainInterface</string>
              <key>NSExtensionPointIdentifier</key>
              <string>com.apple.share-services</string>
            </dict>
          </dict>
        </plist>
        """

    @Test func anInfoPlistWhoseRuleRefusesTheItemsStopsTheStartNamingTheRule() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let plist = try directory.write("Info.plist", Self.seedInfoPlist)
            let exit = await
                (try HostProcess([
                    "--socket", directory.socket, "--data-dir", directory.data, "--info-plist", plist,
                    "--text", "hi", "--url", "https://a.example", "--url", "https://b.example", "--share-key",
                    "ShareKey",
                ])).waitForExit()
            #expect(exit.status == 1)
            #expect(exit.stdoutLines.isEmpty)
            #expect(
                exit.stderr
                    == "extension-host: --info-plist \(plist): its NSExtensionActivationRule does not allow the "
                    + "input items: 2 web URL attachments, but NSExtensionActivationSupportsWebURLWithMaxCount is 1\n")
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
            #expect(!FileManager.default.fileExists(atPath: directory.data))
        }
    }

    @Test func anInfoPlistWhoseRuleAllowsTheItemsLetsTheHostStart() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let plist = try directory.write("Info.plist", Self.seedInfoPlist)
            let photos = try (1...3).map { try directory.write("in/p\($0).jpg", "jpeg \($0)") }
            let notes = try directory.write("in/notes.pdf", "pdf")
            let host = try await HostTesting.start(
                directory,
                [
                    "--info-plist", plist, "--text", "hi", "--url", "https://a.example", "--file", notes,
                ] + photos.flatMap { ["--file", $0] })
            let connection = try await HostTesting.connect(directory)
            let items = try await HostTesting.methods(connection).invokeMethod("getInputItems")
            #expect(items.listValue?.first?["attachments"]?.listValue?.count == 6)
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func aPredicateTheHostCannotEvaluateIsAClearStartupError() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let predicate = "SUBQUERY (extensionItems, $item, TRUEPREDICATE).@count == 1"
            let plist = try directory.write(
                "Info.plist",
                Self.seedInfoPlist.replacingOccurrences(
                    of: #"<key>NSExtensionActivationRule</key>"#,
                    with: "<key>NSExtensionActivationRule</key><string>\(predicate)</string><key>UnusedRule</key>"))
            let exit = await
                (try HostProcess([
                    "--socket", directory.socket, "--data-dir", directory.data,
                    "--info-plist", plist,
                ])).waitForExit()
            #expect(exit.status == 1)
            #expect(
                exit.stderr == "extension-host: --info-plist \(plist): cannot evaluate the NSExtensionActivationRule "
                    + "predicate \(predicate.debugDescription): the host evaluates TRUEPREDICATE, FALSEPREDICATE and the "
                    + "dictionary form (NSExtensionActivationSupports… keys)\n")
        }
    }
}
