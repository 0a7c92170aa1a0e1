/// A codec could not encode a value or decode bytes.
///
/// Decoding errors name the byte offset where the problem was found, because the bytes usually
/// come from another process and the offset is what a person needs to find the fault.
public struct CodecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible without breaking callers that switch on known codes.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A type byte no decoder in this codec knows.
        public static let unknownType = Code("unknownType")
        /// The bytes end before the value does.
        public static let truncated = Code("truncated")
        /// Bytes remain after the top-level value.
        public static let trailingBytes = Code("trailingBytes")
        /// A string is not valid UTF-8.
        public static let invalidUTF8 = Code("invalidUTF8")
        /// A size prefix claims more elements than the remaining bytes can hold.
        public static let sizeTooLarge = Code("sizeTooLarge")
        /// Values nest deeper than the codec's limit.
        public static let nestingTooDeep = Code("nestingTooDeep")
        /// The values a message describes would take more memory than its size allows
        /// (`StandardMessageCodec.decodingAllowance(forMessageOf:)`); refused before building them.
        public static let decodedTooLarge = Code("decodedTooLarge")
        /// A method call is not a string name followed by arguments.
        public static let invalidMethodCall = Code("invalidMethodCall")
        /// An envelope is neither a success nor an error envelope.
        public static let invalidEnvelope = Code("invalidEnvelope")
        /// The text is not valid JSON.
        public static let invalidJSON = Code("invalidJSON")
        /// The value cannot be written in this codec (e.g. a map key that is not a string in JSON).
        public static let unencodable = Code("unencodable")
        /// Typed value notation that does not describe a value.
        public static let invalidNotation = Code("invalidNotation")
    }

    public var code: Code
    public var message: String
    /// Byte offset into the input where decoding failed, when the error is about input bytes.
    public var offset: Int?

    public init(_ code: Code, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(message) (at byte \(offset))" }
        return message
    }
}
