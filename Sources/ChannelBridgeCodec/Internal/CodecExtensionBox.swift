/// A codec extension held by reference, so that handing it to every reader and writer costs one
/// retain. Copying an optional existential goes through the runtime's generic value witnesses:
/// about 60 instructions each time, twice per method call (issue 18).
final class CodecExtensionBox: Sendable {
    let value: any StandardCodecExtension

    init(_ value: any StandardCodecExtension) {
        self.value = value
    }
}
