import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Foundation
import Testing

/// Reads Protocol/vectors/framing-*.json (format described in Protocol/wire-protocol.md).
enum FramingVectors {
    struct Valid: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var frame: Frame
        var canonical: Bool
        var testDescription: String { name }
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        var name: String
        var receiver: PeerRole
        var bytes: [UInt8]
        var layer: String
        var violation: String
        var goodbyeCode: GoodbyeCode
        var maxFrameLength: Int?
        var testDescription: String { name }
    }

    static func load(_ file: String) -> [[String: Any]] {
        let url = packageRoot.appendingPathComponent("Protocol/vectors/\(file)")
        guard let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["format"] as? String == "channelbridge-framing-vectors/1",
            let vectors = object["vectors"] as? [[String: Any]]
        else {
            fatalError("cannot read \(url.path)")
        }
        return vectors
    }

    static let valid: [Valid] = load("framing-valid.json").map { entry in
        Valid(
            name: entry["name"] as! String,
            bytes: hex(entry["hex"] as! String),
            frame: frame(from: entry["frame"] as! [String: Any]),
            canonical: entry["canonical"] as? Bool ?? true)
    }

    static let invalid: [Invalid] = load("framing-invalid.json").map { entry in
        Invalid(
            name: entry["name"] as! String,
            receiver: entry["receiver"] as! String == "client" ? .client : .host,
            bytes: hex(entry["hex"] as! String),
            layer: entry["layer"] as! String,
            violation: entry["violation"] as! String,
            goodbyeCode: GoodbyeCode(rawValue: UInt16(entry["goodbyeCode"] as! Int)),
            maxFrameLength: entry["maxFrameLength"] as? Int)
    }

    static func frame(from fields: [String: Any]) -> Frame {
        func payload() -> [UInt8]? {
            (fields["payload"] as? String).map { hex($0) }
        }
        func uint32(_ key: String) -> UInt32 { UInt32((fields[key] as! NSNumber).uint64Value) }
        func uint64(_ key: String) -> UInt64 { UInt64(fields[key] as! String)! }
        switch fields["kind"] as! String {
        case "hello":
            return .hello(
                .init(
                    version: UInt16(fields["version"] as! Int), flags: UInt16(fields["flags"] as! Int),
                    role: fields["role"] as! String == "host" ? .host : .client,
                    peerName: fields["peerName"] as! String,
                    maxFrameLength: fields["maxFrameLength"] as? Int))
        case "request":
            return .request(id: uint32("id"), channel: fields["channel"] as! String, payload: payload())
        case "reply":
            switch fields["status"] as! Int {
            case 0: return .reply(id: uint32("id"), result: .bytes(payload()!))
            case 1: return .reply(id: uint32("id"), result: .null)
            default: return .reply(id: uint32("id"), result: .failure(fields["diagnostic"] as! String))
            }
        case "message":
            return .message(channel: fields["channel"] as! String, payload: payload())
        case "cancel":
            return .cancel(id: uint32("id"))
        case "ping":
            return .ping(token: uint64("token"))
        case "pong":
            return .pong(token: uint64("token"))
        case "goodbye":
            return .goodbye(
                code: GoodbyeCode(rawValue: UInt16(fields["code"] as! Int)), reason: fields["reason"] as! String)
        default:
            fatalError("unknown kind in vector: \(fields)")
        }
    }
}
