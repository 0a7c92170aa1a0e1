import ChannelBridgeCodec

/// The method name of the last call an in-place handler decoded, which the next call to the same
/// method takes again instead of building a string from its bytes
/// (`StandardMethodCodec.decodeMethodCall(in:recentMethod:)`, issue 18).
///
/// Invariant: touched only by its handler, which one connection runs inside its deliveries of
/// received bytes, and those never overlap (`FrameTransport`'s rules), so it needs no lock.
final class RecentMethodName: @unchecked Sendable {
    @exclusivity(unchecked) var name = StandardMethodCodec.RecentMethod()
}
