import ChannelBridgeCodec

/// An error from StandardValueEncoder or StandardValueDecoder as one line, the path first
/// ("`user.tags[2]`: expected a String, found int32 3"); any other error as its description.
func codingErrorMessage(_ error: any Error) -> String {
    switch error {
    case let error as DecodingError: StandardValueDecoder.message(for: error)
    case let error as EncodingError: StandardValueEncoder.message(for: error)
    default: String(describing: error)
    }
}
