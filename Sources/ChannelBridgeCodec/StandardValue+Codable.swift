// StandardValue as a Codable type, so that a typed struct can keep a free-form part as it came
// (`var details: StandardValue`). StandardValueEncoder and StandardValueDecoder pass it through
// unchanged; other coders (JSONEncoder, PropertyListEncoder) get the nearest plain form.

extension StandardValue: Encodable {
    /// With another encoder: null, bool, numbers, strings and lists as themselves, typed lists and
    /// byte arrays as lists of numbers, maps with string keys as keyed containers.
    ///
    /// - Throws: `EncodingError.invalidValue` for a map with a key that is not a string, or a
    ///   custom value, which only the Standard codec can carry.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value): try value.encode(to: encoder)
        case .int32(let value): try value.encode(to: encoder)
        case .int64(let value): try value.encode(to: encoder)
        case .float64(let value): try value.encode(to: encoder)
        case .string(let value): try value.encode(to: encoder)
        case .uint8List(let value): try value.encode(to: encoder)
        case .int32List(let value): try value.encode(to: encoder)
        case .int64List(let value): try value.encode(to: encoder)
        case .float32List(let value): try value.encode(to: encoder)
        case .float64List(let value): try value.encode(to: encoder)
        case .list(let elements): try elements.encode(to: encoder)
        case .map(let entries):
            var container = encoder.container(keyedBy: StandardCodingKey.self)
            for entry in entries {
                guard case .string(let key) = entry.key else {
                    throw EncodingError.invalidValue(
                        self,
                        EncodingError.Context(
                            codingPath: encoder.codingPath,
                            debugDescription:
                                "a map key \(StandardValue.describe(entry.key)) has no form outside the Standard codec")
                    )
                }
                try container.encode(entry.value, forKey: StandardCodingKey(mapKey: .string(key)))
            }
        case .custom(let custom):
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "a custom value (type \(custom.tag)) has no form outside the Standard codec"))
        }
    }
}

extension StandardValue: Decodable {
    /// With another decoder: null, a bool, an integer (int32 when it fits), a double, a string, a
    /// list, or a map with string keys — the first that the decoder's value is.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() { self = .null; return }
            if let value = try? container.decode(Bool.self) { self = .bool(value); return }
            if let value = try? container.decode(Int64.self) { self = .int(value); return }
            if let value = try? container.decode(Double.self) { self = .float64(value); return }
            if let value = try? container.decode(String.self) { self = .string(value); return }
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [StandardValue] = []
            while !container.isAtEnd { elements.append(try container.decode(StandardValue.self)) }
            self = .list(elements)
            return
        }
        let container = try decoder.container(keyedBy: StandardCodingKey.self)
        self = .map(
            try container.allKeys.map { key in
                MapEntry(.string(key.stringValue), try container.decode(StandardValue.self, forKey: key))
            })
    }
}
