import ChannelBridgeCodec

/// Runs `body` and returns the CodecError it throws, or nil when it does not throw one.
func codecError<T>(_ body: () throws(CodecError) -> T) -> CodecError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
