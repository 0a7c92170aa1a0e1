import ChannelBridgeHost
import Testing

/// A file attachment's copy is named after its path's last component when it has no "name"; a
/// path whose last component is no file name is refused (found by the items-file fuzz target:
/// `{"file": "a/.."}` was read with the name "..", and the copy would have replaced the
/// container's parent).
@Suite struct InputItemsFileNameTests {
    static func parse(_ text: String) throws(HostError) -> [InputItem] {
        try InputItemsFile.parse(Array(text.utf8), source: "items.json", baseDirectory: "/base")
    }

    @Test(arguments: ["a/..", "..", "a/.", ".", "/", "//", "a/./"])
    func pathsThatEndInNoFileNameAreRefused(file: String) {
        let error = #expect(throws: HostError.self) {
            try Self.parse(#"{"items": [{"attachments": [{"file": "\#(file)"}]}]}"#)
        }
        #expect(
            error?.message
                == #"--items items.json: items[0].attachments[0]: "file" "\#(file)" does not end in a file name; give "name""#
        )
        #expect(error?.code == .invalidInput)
    }

    /// "/" followed by a combining mark is one Character that is not "/", but the byte is still a
    /// separator: the copy would land outside the container.
    @Test(arguments: ["a/\u{301}b", "../\u{301}x"])
    func aSlashFollowedByACombiningMarkIsStillASlash(name: String) {
        let error = #expect(throws: HostError.self) {
            try Self.parse(#"{"items": [{"attachments": [{"file": "/in/f.txt", "name": "\#(name)"}]}]}"#)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains(#""name" must be one file name (no '/')"#) == true)
        let fromPath = #expect(throws: HostError.self) {
            try Self.parse(#"{"items": [{"attachments": [{"file": "/in/\#(name)"}]}]}"#)
        }
        #expect(fromPath?.message.contains("does not end in a file name") == true)
    }

    @Test func aNameMakesSuchAPathUsable() throws {
        let items = try Self.parse(
            #"{"items": [{"attachments": [{"file": "a/..", "name": "up.txt"}, {"file": "dir/"}]}]}"#)
        #expect(
            items[0].attachments.map(\.content) == [
                .file(path: "/base/a/..", name: "up.txt"), .file(path: "/base/dir/", name: "dir"),
            ])
    }
}
