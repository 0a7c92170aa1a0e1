import ChannelBridgeCodec
import ChannelBridgeConformance
import ChannelBridgeTestSupport
import Foundation
import Testing

/// StandardValueDecoder: values produced by Flutter's encoders decode into structs, and every kind
/// of decoding error names the field and reads as one line.
@Suite struct StandardValueDecoderTests {
    let decoder = StandardValueDecoder()

    // MARK: Values from the vectors

    /// The bytes of a vector, by file and name, decoded by our codec (the vector runner checks
    /// elsewhere that this decoding is exact).
    static func vectorValue(_ file: URL, _ name: String) throws -> StandardValue {
        let vectors = try VectorFile.load(path: file.path)
        let vector = try #require(vectors.first { $0.name == name }, "\(name) in \(file.lastPathComponent)")
        switch vector.check {
        case .message(_, let hex): return try StandardMessageCodec().decode(hex)
        case .methodCall(_, let hex): return try StandardMethodCodec().decodeMethodCall(hex).arguments
        case .successEnvelope(_, let hex): return try StandardMethodCodec().decodeEnvelope(hex).get()
        default: throw CodecError(.invalidNotation, "\(name) is not a message, call or success envelope")
        }
    }

    static let protocolVectors = packageRoot.appendingPathComponent("Protocol/vectors")
    static let flutterSample = sharedDirectory?.appendingPathComponent("vectors/flutter-sample.json")

    @Test func nestedCallArgumentsFromTheProtocolVectors() throws {
        struct GetAll: Decodable, Equatable {
            struct Options: Decodable, Equatable {
                var reload: Bool
                var timeout: Double
            }
            var suite: String
            var keys: [String]
            var options: Options
            var missing: Int?
        }
        let arguments = try Self.vectorValue(
            Self.protocolVectors.appendingPathComponent("standard-method.json"), "call_nested_args")
        #expect(
            try decoder.decode(GetAll.self, from: arguments)
                == GetAll(suite: "group.com.example", keys: ["a", "b"], options: .init(reload: true, timeout: 2.5)))
    }

    @Test func everyValueTypeFromTheProtocolVectors() throws {
        struct Every: Decodable, Equatable {
            var null: Int?
            var t: Bool
            var f: Bool
            var i: Int8
            var l: UInt64
            var d: Float
            var s: String
            var u8: Data
            var i32: [Int]
            var i64: [Int32]
            var f32: [Double]
            var f64: [Float]
        }
        let value = try Self.vectorValue(
            Self.protocolVectors.appendingPathComponent("standard-containers.json"),
            "map_every_value_type")
        #expect(
            try decoder.decode(Every.self, from: value)
                == Every(
                    null: nil, t: true, f: false, i: 7, l: 8, d: 9.5, s: "str", u8: Data([0xab]),
                    i32: [1], i64: [2], f32: [3], f64: [4]))
    }

    @Test(.enabled(if: flutterSample != nil, "../shared/vectors/flutter-sample.json is not beside this checkout"))
    func valuesFromFlutterOwnEncoders() throws {
        let file = try #require(Self.flutterSample)
        struct Result: Decodable, Equatable {
            var a: Int
            var b: [Bool]
        }
        #expect(
            try decoder.decode(Result.self, from: try Self.vectorValue(file, "success_map")) == Result(a: 1, b: [true]))

        struct Arguments: Decodable, Equatable {
            var a: Int64
            var b: String
        }
        #expect(
            try decoder.decode(Arguments.self, from: try Self.vectorValue(file, "call_map_arg"))
                == Arguments(a: 1, b: "x"))

        // Flutter's C++ example map has a null key and a double key beside the string keys: a struct
        // reads the string keys, a dictionary keyed by StandardValue reads them all.
        struct Example: Decodable, Equatable {
            var a: Double
            var b: Int
        }
        let example = try Self.vectorValue(file, "map_cpp_unittest_example")
        #expect(try decoder.decode(Example.self, from: example) == Example(a: 3.14, b: 47))
        #expect(
            try decoder.decode([StandardValue: StandardValue].self, from: example)
                == [.null: .null, .float64(3.14): ["nested"], "a": .float64(3.14), "b": .int32(47)])

        // A heterogeneous list, read positionally.
        struct Row: Decodable, Equatable {
            var nothing: String?
            var greeting: String
            var pi: Double
            var answer: Int
            var nested: [StandardValue]
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                nothing = try list.decodeIfPresent(String.self)
                greeting = try list.decode(String.self)
                pi = try list.decode(Double.self)
                answer = try list.decode(Int.self)
                nested = try list.decode([StandardValue].self)
            }
            init(nothing: String?, greeting: String, pi: Double, answer: Int, nested: [StandardValue]) {
                (self.nothing, self.greeting, self.pi, self.answer, self.nested) = (
                    nothing, greeting, pi, answer, nested
                )
            }
        }
        #expect(
            try decoder.decode(Row.self, from: try Self.vectorValue(file, "list_cpp_unittest_example"))
                == Row(nothing: nil, greeting: "hello", pi: 3.14, answer: 47, nested: [.int32(42), "nested"]))
        #expect(
            try decoder.decode([Int32].self, from: try Self.vectorValue(file, "int32list_three")) == [
                305_419_896, -1, 0,
            ])
        #expect(
            try decoder.decode([Int64].self, from: try Self.vectorValue(file, "int64list_two"))
                == [1_311_768_467_294_899_695, -1])
        #expect(try decoder.decode(Int64.self, from: try Self.vectorValue(file, "int64_1")) == 1)
        #expect(try decoder.decode(Int32.self, from: try Self.vectorValue(file, "int64_1")) == 1)
    }

    // MARK: Errors

    struct Profile: Decodable {
        struct User: Decodable {
            var name: String
            var tags: [String]
            var age: Int32?
        }
        var user: User
    }

    /// Decodes `T`, expects a `DecodingError`, and checks its one-line message and coding path.
    func expectError<T: Decodable>(
        _ type: T.Type, from value: StandardValue, message: String, path: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DecodingError {
        let error = try #require(throws: DecodingError.self, sourceLocation: sourceLocation) {
            try decoder.decode(T.self, from: value)
        }
        #expect(StandardValueDecoder.message(for: error) == message, sourceLocation: sourceLocation)
        let context: DecodingError.Context
        var keyPath: [String] = []
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): context = c
        case .keyNotFound(let key, let c):
            context = c
            keyPath = [key.stringValue]
        @unknown default: throw error
        }
        #expect(context.codingPath.map(\.stringValue) + keyPath == path, sourceLocation: sourceLocation)
        return error
    }

    @Test func aValueOfTheWrongTypeNamesItsPath() throws {
        let error = try expectError(
            Profile.self, from: ["user": ["name": "Ada", "tags": ["a", "b", .int32(3)]]],
            message: "`user.tags[2]`: expected a String, found int32 3", path: ["user", "tags", "2"])
        guard case .typeMismatch(let type, _) = error else { Issue.record("\(error)"); return }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
    }

    @Test func nullWhereAValueIsNeededIsValueNotFound() throws {
        let error = try expectError(
            Profile.self, from: ["user": ["name": nil, "tags": []]],
            message: "`user.name`: expected a String, found null", path: ["user", "name"])
        guard case .valueNotFound = error else { Issue.record("\(error)"); return }
    }

    @Test func aMissingFieldIsKeyNotFound() throws {
        let error = try expectError(
            Profile.self, from: ["user": ["tags": []]], message: "`user.name`: missing",
            path: ["user", "name"])
        guard case .keyNotFound(let key, let context) = error else { Issue.record("\(error)"); return }
        #expect(key.stringValue == "name")
        #expect(context.codingPath.map(\.stringValue) == ["user"])
    }

    @Test func anIntegerOutOfRangeIsDataCorrupted() throws {
        let error = try expectError(
            Profile.self, from: ["user": ["name": "Ada", "tags": [], "age": .int64(5_000_000_000)]],
            message: "`user.age`: int64 5000000000 does not fit in Int32", path: ["user", "age"])
        guard case .dataCorrupted = error else { Issue.record("\(error)"); return }
        _ = try expectError(
            [UInt8].self, from: [.int32(1), .int32(256)], message: "`[1]`: int32 256 does not fit in UInt8",
            path: ["1"])
        _ = try expectError(
            Data.self, from: [.int32(-1)], message: "`[0]`: int32 -1 does not fit in UInt8", path: ["0"])
        _ = try expectError(Float.self, from: .float64(1e300), message: "double 1e+300 does not fit in Float", path: [])
    }

    @Test func theTopLevelHasNoPath() throws {
        _ = try expectError(Profile.self, from: "Ada", message: "expected a Map, found String \"Ada\"", path: [])
        _ = try expectError([Int].self, from: .map([]), message: "expected a List, found Map of 0 entries", path: [])
        _ = try expectError(Bool.self, from: .int32(1), message: "expected a bool, found int32 1", path: [])
        _ = try expectError(Int.self, from: .float64(1), message: "expected an int, found double 1.0", path: [])
        _ = try expectError(Data.self, from: "x", message: "expected a Uint8List, found String \"x\"", path: [])
    }

    @Test func anUnknownRawValueNamesTheField() throws {
        enum Color: String, Decodable { case red }
        struct Paint: Decodable { var color: Color }
        _ = try expectError(
            Paint.self, from: ["color": "purple"],
            message: "`color`: Cannot initialize Color from invalid String value purple", path: ["color"])
    }

    @Test func aListTooShortForItsReader() throws {
        struct Pair: Decodable {
            var first: Int, second: Int
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                first = try list.decode(Int.self)
                second = try list.decode(Int.self)
            }
        }
        _ = try expectError(
            [String: Pair].self, from: ["p": [.int32(1)]],
            message: "`p[1]`: missing, the list has only 1 element", path: ["p", "1"])
    }

    @Test func dictionaryKeysAndValuesAreNamed() throws {
        _ = try expectError(
            [String: Int].self, from: ["home": "x"],
            message: "`home`: expected an int, found String \"x\"", path: ["home"])
        _ = try expectError(
            [String: [String: Int]].self, from: ["labels": ["a b": "x"]],
            message: "`labels[\"a b\"]`: expected an int, found String \"x\"", path: ["labels", "a b"])
        _ = try expectError(
            [Int: Int].self, from: .map([.int32(5): "x"]),
            message: "`[5]`: expected an int, found String \"x\"", path: ["5"])
        _ = try expectError(
            [String: Int].self, from: .map([.int32(1): .int32(1)]),
            message: "`[key 0]`: expected a String, found int32 1", path: ["key 0"])
    }

    @Test func longStringsAreCutInMessages() throws {
        let long = String(repeating: "x", count: 100)
        _ = try expectError(
            Int.self, from: .string(long),
            message: "expected an int, found String \"\(String(repeating: "x", count: 40))…\"", path: [])
    }
}
