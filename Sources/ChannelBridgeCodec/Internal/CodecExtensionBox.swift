/// A codec extension held by reference, so that handing it to every reader and writer costs one
/// retain. Copying an optional existential goes through the runtime's generic value witnesses,
/// which cost far more than a retain, and it would happen twice per method call.
final class CodecExtensionBox: Sendable {
    let value: any StandardCodecExtension

    init(_ value: any StandardCodecExtension) {
        self.value = value
    }
}
