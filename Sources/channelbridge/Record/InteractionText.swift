import ChannelBridgeCodec

/// One interaction's line of a transcript, built straight into bytes: the text `JSONValue.text`
/// gives for the same object (compact, members in the order they are added, strings escaped as
/// `JSONWriter` escapes them), without building the object first.
struct InteractionText {
    /// `{` and the members so far; `closed` adds the `}`.
    private(set) var bytes: [UInt8]

    /// An interaction on `channel`: `{"channel":NAME`.
    init(channel: String) {
        bytes = []
        bytes.reserveCapacity(256)
        bytes.append(contentsOf: #"{"channel":"#.utf8)
        JSONWriter.writeString(channel, into: &bytes)
    }

    /// Adds the member `key` whose value is the JSON text `json`.
    mutating func add(_ key: String, json: [UInt8]) {
        open(key)
        bytes.append(contentsOf: json)
    }

    /// Adds the member `key` whose value is the string `text`.
    mutating func add(_ key: String, string text: String) {
        open(key)
        JSONWriter.writeString(text, into: &bytes)
    }

    /// Adds the member `key` whose value is `payload` in lowercase hex, as `Hex.encode` writes it.
    mutating func add(_ key: String, hex payload: [UInt8]) {
        open(key)
        Self.appendHex(payload, to: &bytes)
    }

    /// The complete line.
    consuming func closed() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func open(_ key: String) {
        bytes.append(contentsOf: #",""#.utf8)
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: #"":"#.utf8)
    }

    /// `"HEX"`: `payload` as a JSON string of lowercase hex digits.
    static func appendHex(_ payload: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "\""), count: payload.count * 2 + 2))
        out.withUnsafeMutableBufferPointer { text in
            var index = start + 1
            for byte in payload {
                text[index] = digits[Int(byte >> 4)]
                text[index + 1] = digits[Int(byte & 0xF)]
                index += 2
            }
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `{"method":M,"args":ARGS}`: a call's member.
    static func call(method: String, arguments: [UInt8]) -> [UInt8] {
        var out = Array(#"{"method":"#.utf8)
        JSONWriter.writeString(method, into: &out)
        out.append(contentsOf: #","args":"#.utf8)
        out.append(contentsOf: arguments)
        out.append(UInt8(ascii: "}"))
        return out
    }

    static let notImplemented = Array(#"{"notImplemented":true}"#.utf8)
}
