/// A transcript that cannot be read: where (a line and column for JSON syntax, a field path such
/// as `interactions[3].reply.error.code` for the document's structure) and what is wrong.
public struct TranscriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `line L, column C` or a field path; empty for the document as a whole.
    public var location: String
    public var message: String

    public init(location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `transcript: LOCATION: MESSAGE`.
    public var description: String {
        location.isEmpty ? "transcript: \(message)" : "transcript: \(location): \(message)"
    }
}
