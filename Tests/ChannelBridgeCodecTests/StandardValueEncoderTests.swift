import ChannelBridgeCodec
import Foundation
import Testing

/// StandardValueEncoder: the exact Standard value each Swift shape becomes, and the round trip back
/// through StandardValueDecoder (and through the codec's bytes where the bytes matter).
@Suite struct StandardValueEncoderTests {
    struct Address: Codable, Hashable {
        var street: String
        var zip: Int32
    }

    struct User: Codable, Equatable {
        var name: String
        var age: Int
        var score: Double
        var active: Bool
        var address: Address
        var tags: [String]
        var nickname: String?
    }

    enum Color: String, Codable { case red, green }
    enum Priority: Int, Codable { case low = 1, high = 1_000_000_000_000 }

    let encoder = StandardValueEncoder()
    let decoder = StandardValueDecoder()

    /// Encodes, checks the value, decodes it back, and checks the bytes decode to the same value.
    func roundTrip<T: Codable & Equatable>(
        _ value: T, _ expected: StandardValue,
        encoder: StandardValueEncoder = StandardValueEncoder(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let encoded = try encoder.encode(value)
        #expect(encoded == expected, sourceLocation: sourceLocation)
        #expect(try decoder.decode(T.self, from: encoded) == value, sourceLocation: sourceLocation)
        let codec = StandardMessageCodec()
        #expect(
            try decoder.decode(T.self, from: try codec.decode(try codec.encode(encoded))) == value,
            sourceLocation: sourceLocation)
    }

    @Test func nestedStructsAreMapsWithKeysInDeclarationOrder() throws {
        let user = User(
            name: "Ada", age: 36, score: 99.5, active: true, address: Address(street: "Main St", zip: 12345),
            tags: ["math", "engines"], nickname: "Countess")
        try roundTrip(
            user,
            .map([
                "name": "Ada", "age": .int32(36), "score": .float64(99.5), "active": true,
                "address": .map(["street": "Main St", "zip": .int32(12345)]),
                "tags": ["math", "engines"], "nickname": "Countess",
            ]))
    }

    @Test func nilIsNullUnderItsKeyAndAMissingKeyDecodesAsNil() throws {
        let user = User(
            name: "Ada", age: 36, score: 0, active: false, address: Address(street: "", zip: 0), tags: [],
            nickname: nil)
        let encoded = try encoder.encode(user)
        #expect(encoded["nickname"] == .null)
        #expect(encoded.mapEntries?.map(\.key) == ["name", "age", "score", "active", "address", "tags", "nickname"])
        #expect(try decoder.decode(User.self, from: encoded) == user)

        // The same map without the key at all.
        guard case .map(let entries) = encoded else { throw CodecError(.unencodable, "not a map") }
        let withoutKey = StandardValue.map(entries.filter { $0.key != "nickname" })
        #expect(try decoder.decode(User.self, from: withoutKey) == user)

        struct Optionals: Codable, Equatable {
            var int: Int?
            var list: [Int?]
            var nested: Address?
        }
        try roundTrip(
            Optionals(int: nil, list: [1, nil], nested: nil),
            .map(["int": .null, "list": [.int32(1), .null], "nested": .null]))
        try roundTrip(
            Optionals(int: 5, list: [], nested: Address(street: "x", zip: 1)),
            .map(["int": .int32(5), "list": [], "nested": .map(["street": "x", "zip": .int32(1)])]))
        #expect(try encoder.encode(Int?.none) == .null)
    }

    @Test func enumsAreTheirRawValues() throws {
        struct Flags: Codable, Equatable {
            var color: Color
            var priority: Priority
            var others: [Color]
        }
        try roundTrip(
            Flags(color: .green, priority: .high, others: [.red]),
            .map(["color": "green", "priority": .int64(1_000_000_000_000), "others": ["red"]]))
        try roundTrip(
            Flags(color: .red, priority: .low, others: []),
            .map(["color": "red", "priority": .int32(1), "others": []]))

        // Enums with associated values use the synthesized keyed form.
        enum Shape: Codable, Equatable {
            case circle(radius: Double)
            case square(Int32)
        }
        try roundTrip(
            [Shape.circle(radius: 1.5), .square(4)],
            [
                .map(["circle": .map(["radius": .float64(1.5)])]),
                .map(["square": .map(["_0": .int32(4)])]),
            ])
    }

    @Test func byteArraysAreUint8Lists() throws {
        struct Blob: Codable, Equatable {
            var bytes: [UInt8]
            var data: Data
            var optionalData: Data?
        }
        try roundTrip(
            Blob(bytes: [0, 1, 255], data: Data([9, 8]), optionalData: Data([7])),
            .map(["bytes": .uint8List([0, 1, 255]), "data": .uint8List([9, 8]), "optionalData": .uint8List([7])]))
        #expect(try encoder.encode(Data()) == .uint8List([]))
        // A Dart List<int> of bytes is read too.
        #expect(try decoder.decode([UInt8].self, from: [.int32(1), .int64(2)]) == [1, 2])
        #expect(try decoder.decode(Data.self, from: [.int32(255)]) == Data([255]))
    }

    @Test func typedListStrategy() throws {
        struct Numbers: Codable, Equatable {
            var int32s: [Int32]
            var int64s: [Int64]
            var doubles: [Double]
            var floats: [Float]
        }
        let numbers = Numbers(int32s: [1, -1], int64s: [5, 1 << 40], doubles: [0.5, -0.0], floats: [1.5])
        // Default: plain lists, integers picked as Dart picks them.
        try roundTrip(
            numbers,
            .map([
                "int32s": [.int32(1), .int32(-1)], "int64s": [.int32(5), .int64(1 << 40)],
                "doubles": [.float64(0.5), .float64(-0.0)], "floats": [.float64(1.5)],
            ]))
        try roundTrip(
            numbers,
            .map([
                "int32s": .int32List([1, -1]), "int64s": .int64List([5, 1 << 40]),
                "doubles": .float64List([0.5, -0.0]), "floats": .float32List([1.5]),
            ]), encoder: StandardValueEncoder(typedListStrategy: .typedLists))

        // Either form decodes into any array whose elements hold the values.
        #expect(try decoder.decode([Int].self, from: .int32List([3, 4])) == [3, 4])
        #expect(try decoder.decode([Int32].self, from: .int64List([3, 4])) == [3, 4])
        #expect(try decoder.decode([Double].self, from: .float32List([0.5])) == [0.5])
        #expect(try decoder.decode([Float].self, from: .float64List([0.25])) == [0.25])
        #expect(try decoder.decode([Int64].self, from: .uint8List([200])) == [200])
        #expect(try decoder.decode([Double].self, from: [.int32(1), .float64(2.5)]) == [1, 2.5])
    }

    @Test func integerEdges() throws {
        struct Ints: Codable, Equatable {
            var int: Int
            var int64: Int64
            var int32: Int32
            var uint32: UInt32
        }
        try roundTrip(
            Ints(int: Int(Int32.max), int64: Int64.min, int32: Int32.min, uint32: UInt32(Int32.max) + 1),
            .map([
                "int": .int32(Int32.max), "int64": .int64(Int64.min), "int32": .int32(Int32.min),
                "uint32": .int64(Int64(Int32.max) + 1),
            ]))
        try roundTrip(
            Ints(int: Int(Int32.max) + 1, int64: 0, int32: 0, uint32: 0),
            .map(["int": .int64(Int64(Int32.max) + 1), "int64": .int32(0), "int32": .int32(0), "uint32": .int32(0)]))
        try roundTrip([Int64.max, Int64(Int32.min) - 1], [.int64(Int64.max), .int64(Int64(Int32.min) - 1)])
        try roundTrip([UInt64(Int64.max)], [.int64(Int64.max)])
        // Any width decodes into any type that holds the value.
        #expect(try decoder.decode(Int8.self, from: .int64(-128)) == -128)
        #expect(try decoder.decode(UInt64.self, from: .int32(7)) == 7)
        #expect(try decoder.decode(Int64.self, from: .int32(Int32.min)) == Int64(Int32.min))
        #expect(try decoder.decode(Double.self, from: .int64(1 << 53)) == 9_007_199_254_740_992)
    }

    @Test func anUnsignedIntegerDartCannotHoldIsAnEncodingError() throws {
        struct Counter: Encodable { var total: UInt64 }
        let error = try #require(throws: EncodingError.self) {
            try StandardValueEncoder().encode(["counters": [Counter(total: UInt64.max)]])
        }
        #expect(
            StandardValueEncoder.message(for: error)
                == "`counters[0].total`: UInt64 18446744073709551615 does not fit in a Dart int (64-bit signed)")
        guard case .invalidValue(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["counters", "0", "total"])
    }

    @Test func dictionariesAreMapsWithTheirOwnKeys() throws {
        // Integer keys stay integers; string and integer keys are sorted, so the bytes are stable.
        try roundTrip(
            [3: "three", 1: "one", 1 << 40: "big"],
            .map([.int32(1): "one", .int32(3): "three", .int64(1 << 40): "big"]))
        try roundTrip(["b": 2, "a": 1], .map(["a": .int32(1), "b": .int32(2)]))
        try roundTrip([Color.red: true], .map(["red": true]))
        try roundTrip([true: "yes"], .map([true: "yes"]))
        try roundTrip(
            [Address(street: "x", zip: 1): 5],
            .map([.map(["street": "x", "zip": .int32(1)]): .int32(5)]))
        #expect(try decoder.decode([Int: String].self, from: .map([.int64(9): "nine"])) == [9: "nine"])
        // A repeated key: the last wins, as when Dart reads the map.
        #expect(try decoder.decode([String: Int].self, from: .map(["a": .int32(1), "a": .int32(2)])) == ["a": 2])
    }

    @Test func standardValueFieldsPassThrough() throws {
        struct Envelope: Codable, Equatable {
            var kind: String
            var payload: StandardValue
        }
        let payload: StandardValue = .map([.int32(1): .null, "list": .float32List([1]), "n": .int64(5)])
        try roundTrip(Envelope(kind: "raw", payload: payload), .map(["kind": "raw", "payload": payload]))
        // Even a custom value, which only a codec extension can write as bytes.
        let custom = Envelope(kind: "custom", payload: .custom(CustomValue(RawCustomValue(tag: 200, payload: [1]))))
        let encoded = try encoder.encode(custom)
        #expect(encoded == .map(["kind": "custom", "payload": custom.payload]))
        #expect(try decoder.decode(Envelope.self, from: encoded) == custom)
    }

    /// Hand-written conformances with nested containers, a super encoder and a key written twice.
    final class Base: Codable {
        var id: Int32 = 1
    }

    final class Derived: Codable, Equatable {
        var id: Int32
        var point: (x: Int32, y: Int32)
        var path: [String]

        init(id: Int32, point: (x: Int32, y: Int32), path: [String]) {
            (self.id, self.point, self.path) = (id, point, path)
        }

        enum Keys: String, CodingKey { case id, point, path, x, y }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(Int32(0), forKey: .id)  // replaced below; keeps its place
            var point = container.nestedContainer(keyedBy: Keys.self, forKey: .point)
            var path = container.nestedUnkeyedContainer(forKey: .path)
            try container.encode(id, forKey: .id)
            let base = Base()
            base.id = id * 10
            try base.encode(to: container.superEncoder())
            try point.encode(self.point.x, forKey: .x)
            try point.encode(self.point.y, forKey: .y)
            for element in self.path { try path.encode(element) }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            id = try container.decode(Int32.self, forKey: .id)
            let point = try container.nestedContainer(keyedBy: Keys.self, forKey: .point)
            self.point = (try point.decode(Int32.self, forKey: .x), try point.decode(Int32.self, forKey: .y))
            var path = try container.nestedUnkeyedContainer(forKey: .path)
            var elements: [String] = []
            while !path.isAtEnd { elements.append(try path.decode(String.self)) }
            self.path = elements
            #expect(try Base(from: container.superDecoder()).id == id * 10)
        }

        static func == (lhs: Derived, rhs: Derived) -> Bool {
            lhs.id == rhs.id && lhs.point == rhs.point && lhs.path == rhs.path
        }
    }

    @Test func nestedContainersSuperEncodersAndRepeatedKeys() throws {
        try roundTrip(
            Derived(id: 7, point: (3, 4), path: ["a", "b"]),
            .map([
                "id": .int32(7),
                "point": .map(["x": .int32(3), "y": .int32(4)]),
                "path": ["a", "b"],
                "super": .map(["id": .int32(70)]),
            ]))
    }

    @Test func manyKeysAreKeptAndARepeatedOneReplacedInPlace() throws {
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Wide: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                for n in 0..<300 { try container.encode(n, forKey: AnyKey(stringValue: "key\(n)")) }
                try container.encode("again", forKey: AnyKey(stringValue: "key150"))
                // A second container on the same encoder writes into the same map.
                var more = encoder.container(keyedBy: AnyKey.self)
                try more.encode(true, forKey: AnyKey(stringValue: "key7"))
            }
        }
        var expected = (0..<300).map { StandardValue.MapEntry(.string("key\($0)"), .int($0)) }
        expected[150].value = "again"
        expected[7].value = true
        #expect(try encoder.encode(Wide()) == .map(expected))
    }

    @Test func aValueThatEncodesNothing() throws {
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        struct Holder: Encodable { var nothing = Nothing() }
        // Nested, it is an empty map (an empty object in JSONEncoder); alone, it is an error.
        #expect(try encoder.encode(Holder()) == .map(["nothing": .map([])]))
        let error = try #require(throws: EncodingError.self) { try encoder.encode(Nothing()) }
        #expect(StandardValueEncoder.message(for: error) == "Nothing did not encode any value")
    }

    /// The encoder remembers facts per type in tables shared by every encoder in the process; many
    /// tasks encoding structs and dictionaries at once must each get exactly their own values.
    @Test func encodingFromManyTasksAtOnce() async throws {
        let user = User(
            name: "Ada", age: 36, score: 1, active: true, address: Address(street: "s", zip: 1),
            tags: ["t"], nickname: nil)
        let expectedUser = try StandardValueEncoder().encode(user)
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    let encoder = StandardValueEncoder()
                    for n in 0..<500 {
                        if try encoder.encode(user) != expectedUser { mismatches += 1 }
                        let dictionary = [n: task, -n - 1: task]
                        if try encoder.encode(dictionary) != .map([.int(-n - 1): .int(task), .int(n): .int(task)]) {
                            mismatches += 1
                        }
                        if try encoder.encode(["k\(task)": [n]]) != .map([.string("k\(task)"): [.int(n)]]) {
                            mismatches += 1
                        }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func userInfoReachesTheConformances() throws {
        struct Scaled: Codable, Equatable {
            static let factor = CodingUserInfoKey(rawValue: "factor")!
            var value: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(value * (encoder.userInfo[Self.factor] as? Int ?? 1))
            }
            init(value: Int) { self.value = value }
            init(from decoder: any Decoder) throws {
                value =
                    try decoder.singleValueContainer().decode(Int.self) / (decoder.userInfo[Self.factor] as? Int ?? 1)
            }
        }
        let encoded = try StandardValueEncoder(userInfo: [Scaled.factor: 10]).encode([Scaled(value: 4)])
        #expect(encoded == [.int32(40)])
        #expect(
            try StandardValueDecoder(userInfo: [Scaled.factor: 10]).decode([Scaled].self, from: encoded) == [
                Scaled(value: 4)
            ])
    }

    @Test func otherCodersSeeStandardValueInItsPlainForm() throws {
        let value: StandardValue = .map(["a": [.int32(1), .float64(2.5), "s", .null, true], "b": .int64List([3])])
        let json = JSONEncoder()
        json.outputFormatting = .sortedKeys
        let text = try json.encode(value)
        #expect(String(decoding: text, as: UTF8.self) == #"{"a":[1,2.5,"s",null,true],"b":[3]}"#)
        // JSON objects have no order; compare as a dictionary.
        #expect(
            try JSONDecoder().decode(StandardValue.self, from: text).dictionaryValue
                == ["a": [.int32(1), .float64(2.5), "s", .null, true], "b": [.int32(3)]])
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(StandardValue.map([.int32(1): "x"])) }
    }
}
