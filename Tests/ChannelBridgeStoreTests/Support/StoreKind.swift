import ChannelBridgeStore
import ChannelBridgeTestSupport

/// The two `PreferenceStore` implementations, so behaviour tests run against both.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case file
    case memory

    var description: String { rawValue }

    /// Runs `body` with a fresh, empty store of this kind (a file store in a temporary directory).
    func withStore<T>(_ body: (any PreferenceStore) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await body(InMemoryPreferenceStore())
        case .file:
            return try await TestDirectory.withPath { directory in
                try await body(try AppGroupStore(dataDirectory: directory).group("group.com.example.tests"))
            }
        }
    }
}
