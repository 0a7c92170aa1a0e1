import ChannelBridgeCodec

/// The method name of the last call an in-place handler decoded, which the next call to the same
/// method takes again instead of building a string from its bytes
/// (`StandardMethodCodec.decodeMethodCall(in:recentMethod:)`).
///
/// Only its handler touches it, and one connection runs that handler inside its deliveries of
/// received bytes, which never overlap (`FrameTransport`'s rules), so it needs no lock.
// @unchecked: touched only by its one handler, inside its connection's non-overlapping deliveries.
final class RecentMethodName: @unchecked Sendable {
    @exclusivity(unchecked) var name = StandardMethodCodec.RecentMethod()
}
