/// One fuzz target: a thin wrapper over one entry point that reads foreign bytes, with the checks
/// that can be made on what it returns. Each target file names its entry point at the top, so that
/// re-pointing it after that code moves is a one-line change.
package protocol FuzzTarget: SendableMetatype {
    /// The name `Scripts/fuzz TARGET` and `channelbridge-fuzz --target=NAME` use.
    static var name: String { get }

    /// Runs one input. Returns for every input the code under test handles as it must (reads it,
    /// or refuses it with its typed error); stops the process with a finding otherwise, and
    /// libFuzzer keeps the input.
    static func run(_ input: [UInt8])

    /// Inputs the corpus starts from: derived from `Protocol/vectors/` and from the fixtures the
    /// unit tests use (`Fuzz/Seeds/NAME/` holds those, minimised).
    static func seeds(_ source: SeedSource) throws -> [[UInt8]]
}

/// A target by value: its name and functions (no existential metatypes, which this compiler
/// version crashed on in the driver).
package struct AnyFuzzTarget: Sendable {
    package let name: String
    package let run: @Sendable ([UInt8]) -> Void
    package let seeds: @Sendable (SeedSource) throws -> [[UInt8]]

    init<Target: FuzzTarget>(_: Target.Type) {
        name = Target.name
        run = { Target.run($0) }
        seeds = { try Target.seeds($0) }
    }
}

/// Every target, in the order `Scripts/fuzz` runs them.
package enum FuzzTargets {
    package static let all: [AnyFuzzTarget] = [
        AnyFuzzTarget(StandardMessageTarget.self),
        AnyFuzzTarget(StandardMethodCallTarget.self),
        AnyFuzzTarget(StandardEnvelopeTarget.self),
        AnyFuzzTarget(JSONMessageTarget.self),
        AnyFuzzTarget(JSONMethodCallTarget.self),
        AnyFuzzTarget(JSONEnvelopeTarget.self),
        AnyFuzzTarget(StrictTVNTarget.self),
        AnyFuzzTarget(LenientTVNTarget.self),
        AnyFuzzTarget(FrameDecoderTarget.self),
        AnyFuzzTarget(HelloTarget.self),
        AnyFuzzTarget(PreferencesFileTarget.self),
        AnyFuzzTarget(ItemsFileTarget.self),
        AnyFuzzTarget(InfoPlistTarget.self),
    ]

    package static func named(_ name: String) -> AnyFuzzTarget? {
        all.first { $0.name == name }
    }
}
