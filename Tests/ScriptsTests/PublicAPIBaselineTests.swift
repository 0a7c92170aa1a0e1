import ChannelBridgeTestSupport
import Foundation
import Testing

/// `Scripts/public-api-count --check`, which `.ci/run` runs right after the build: run on a small
/// tree of its own, it passes on the API its baseline holds and fails, printing the difference,
/// on any other.
@Suite struct PublicAPIBaselineTests {
    static let script = packageRoot.appendingPathComponent("Scripts/public-api-count").path

    static let shape = """
        /// A shape. `public func inAComment()` is no declaration.
        public struct Shape: Sendable {
            public var sides: Int
            let label = "public var inAString = 1 } {"
            package func measured() -> Int { sides }
            public func named(_ name: String = "a } (\\(1) {") -> String { name }

            public init(
                sides: Int = 3
            ) {
                self.sides = sides
            }
        }

        public enum Corner: Sendable {
            case sharp, round
        }

        public protocol Measured {
            var size: Int { get }
        }

        """

    static let baseline = """
        Corner: case sharp, round
        Measured: var size: Int { get }
        Shape: public func named(_ name: String = "a } (\\(1) {") -> String
        Shape: public init(sides: Int = 3)
        Shape: public var sides: Int
        public enum Corner: Sendable
        public protocol Measured
        public struct Shape: Sendable

        """

    func run(_ arguments: [String], in root: String) async throws -> ProcessRunner.Outcome {
        try await ProcessRunner.runOnThread(Self.script, arguments, currentDirectory: URL(fileURLWithPath: root))
    }

    @Test func aChangedPublicAPIFailsTheCheckWithTheDifferenceUntilTheBaselineIsUpdated() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = directory.path
        do {
            try directory.write("Sources/ChannelBridgeCodec/Shape.swift", Self.shape)

            let update = try await run(["--update"], in: root)
            #expect(update.status == 0)
            #expect(update.stdout == "public-api-count: wrote the baselines of 1 modules to Scripts/api/\n")
            let written = try String(contentsOfFile: root + "/Scripts/api/ChannelBridgeCodec.txt", encoding: .utf8)
            #expect(written == Self.baseline)
            let same = try await run(["--check"], in: root)
            #expect(same.status == 0)
            #expect(same.stdout == "public-api-count: the public API of each of 1 modules is its baseline\n")

            // A conformance and two members, added in a file of their own.
            try directory.write(
                "Sources/ChannelBridgeCodec/Shape+Area.swift",
                """
                extension Shape: Measured {
                    public var size: Int { sides }

                    @inlinable public func area(scale: Double = 1) -> Double { 0 }
                }

                """)
            let changed = try await run(["--check"], in: root)
            #expect(changed.status == 1)
            #expect(
                changed.stdout == """
                    --- Scripts/api/ChannelBridgeCodec.txt (baseline)
                    +++ Sources/ChannelBridgeCodec (tree)
                    @@ -2,0 +3 @@
                    +Shape: public func area(scale: Double = 1) -> Double
                    @@ -5,0 +7,2 @@
                    +Shape: public var size: Int
                    +extension Shape: Measured
                    public-api-count: the public API of ChannelBridgeCodec differs from its baseline; \
                    if the change is meant, run Scripts/public-api-count --update and commit Scripts/api/

                    """)

            #expect(try await run(["--update"], in: root).status == 0)
            #expect(try await run(["--check"], in: root).status == 0)
        }
    }

    @Test func movingADeclarationToAnotherFileOrAnExtensionLeavesTheBaselineAsItIs() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = directory.path
        do {
            try directory.write("Sources/ChannelBridgeCodec/Shape.swift", Self.shape)
            #expect(try await run(["--update"], in: root).status == 0)

            try directory.write(
                "Sources/ChannelBridgeCodec/Shape.swift",
                Self.shape.replacingOccurrences(
                    of: """

                            public init(
                                sides: Int = 3
                            ) {
                                self.sides = sides
                            }

                        """, with: ""))
            let rest = try String(contentsOfFile: root + "/Sources/ChannelBridgeCodec/Shape.swift", encoding: .utf8)
            #expect(!rest.contains("init"), "the initializer is still in Shape.swift")
            try directory.write(
                "Sources/ChannelBridgeCodec/Shape+Init.swift",
                """
                extension Shape {
                    public init(sides: Int = 3) { self.sides = sides }
                }

                """)
            let moved = try await run(["--check"], in: root)
            #expect(moved.stdout == "public-api-count: the public API of each of 1 modules is its baseline\n")
            #expect(moved.status == 0)
        }
    }

    @Test func aModuleWithoutABaselineAndABaselineWithoutAModuleFailTheCheck() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = directory.path
        do {
            try directory.write("Sources/ChannelBridgeCodec/Shape.swift", "public struct Shape {}\n")
            try directory.write("Scripts/api/ChannelBridgeGone.txt", "public struct Gone\n")
            let check = try await run(["--check"], in: root)
            #expect(check.status == 1)
            #expect(
                check.stdout == """
                    public-api-count: Scripts/api/ChannelBridgeCodec.txt is missing
                    --- Scripts/api/ChannelBridgeCodec.txt (baseline)
                    +++ Sources/ChannelBridgeCodec (tree)
                    @@ -0,0 +1 @@
                    +public struct Shape
                    public-api-count: Scripts/api/ChannelBridgeGone.txt is the baseline of no module
                    public-api-count: the public API of ChannelBridgeCodec, ChannelBridgeGone.txt differs from its baseline; \
                    if the change is meant, run Scripts/public-api-count --update and commit Scripts/api/

                    """)
        }
    }

    /// A library's directory under Sources/ that the script does not list fails the check, so a
    /// new module cannot go unchecked; an executable's (its `main.swift` or `@main`) does not.
    @Test func aLibraryModuleTheScriptDoesNotListFailsTheCheck() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = directory.path
        try directory.write("Sources/ChannelBridgeCodec/Shape.swift", "public struct Shape {}\n")
        try directory.write("Sources/ChannelBridgeNew/New.swift", "public struct New {}\n")
        try directory.write("Sources/some-tool/main.swift", "print(1)\n")
        try directory.write("Sources/other-tool/Tool.swift", "@main struct Tool { static func main() {} }\n")
        #expect(try await run(["--update"], in: root).status == 0)
        let check = try await run(["--check"], in: root)
        #expect(check.status == 1)
        #expect(
            check.stdout == """
                public-api-count: Sources/ChannelBridgeNew is a library module missing from MODULES
                public-api-count: the public API of ChannelBridgeNew differs from its baseline; \
                if the change is meant, run Scripts/public-api-count --update and commit Scripts/api/

                """)
    }

    /// A public declaration marked `@_spi(NAME)` counts as spi, not public, and is a baseline line
    /// with its attribute, so adding one shows in the check like any other change.
    @Test func anSPIDeclarationIsCountedApartAndKeptInTheBaseline() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let root = directory.path
        try directory.write(
            "Sources/ChannelBridgeCodec/Dial.swift",
            """
            public struct Dial {
                public var turns: Int
                @_spi(Benchmarks) public var fastTurns: Int
                @_spi(Benchmarks)
                public func spin() {}
                package var hidden: Int
            }

            """)
        let counts = try await run([], in: root)
        #expect(counts.status == 0)
        #expect(
            counts.stdout
                == "ChannelBridgeCodec               public    2   package    1   spi   2\n")
        #expect(try await run(["--update"], in: root).status == 0)
        let written = try String(contentsOfFile: root + "/Scripts/api/ChannelBridgeCodec.txt", encoding: .utf8)
        #expect(
            written == """
                Dial: @_spi(Benchmarks) public func spin()
                Dial: @_spi(Benchmarks) public var fastTurns: Int
                Dial: public var turns: Int
                public struct Dial

                """)
    }
}
