import ChannelBridgeTestSupport
import Foundation
import Testing

/// ChannelBridgeHost's public API, as `Scripts/public-api-count` counts it in this tree: at most 40
/// declarations, and among them what a user of the library needs to read how a request ended and
/// to build the input items of a request by hand. The package's own tests see `package`
/// declarations too, so only the count shows what is public.
@Suite struct HostPublicAPITests {
    func run(_ arguments: [String]) async throws -> ProcessRunner.Outcome {
        try await ProcessRunner.runOnThread(PublicAPIBaselineTests.script, arguments, currentDirectory: packageRoot)
    }

    @Test func hostHasAtMostFortyPublicDeclarations() async throws {
        let counts = try await run([])
        #expect(counts.status == 0)
        let line = counts.stdout.split(separator: "\n").first { $0.hasPrefix("ChannelBridgeHost ") }
        let count = line.flatMap { $0.split(separator: " ").dropFirst(2).first }.flatMap { Int($0) }
        #expect(
            count.map { $0 <= 40 } == true,
            "\(line.map(String.init) ?? "no line for ChannelBridgeHost in \(counts.stdout)")")
    }

    @Test func aUserReadsHowTheRequestEndedAndBuildsInputItems() async throws {
        let list = try await run(["--list", "ChannelBridgeHost"])
        #expect(list.status == 0)
        let lines = Set(list.stdout.split(separator: "\n").map(String.init))
        let needed = [
            "CompletionRecord: public package(set) var outcome: HostOutcome",
            "CompletionRecord: public var jsonLine: String",
            "ExtensionRequest: public init(inputItems: [InputItem])",
            "ExtensionRequest: public var completionRecord: CompletionRecord?",
            "InputItem: public init(title: String? = nil, contentText: String? = nil, attachments: [InputAttachment] = [])",
            "InputAttachment: public static func text(_ text: String) -> InputAttachment",
            "InputAttachment: public static func url(_ url: String) -> InputAttachment",
            "InputAttachment: public static func file(path: String, name: String? = nil) -> InputAttachment",
            "public struct InputAttachment: Sendable, Hashable",
        ]
        #expect(needed.filter { !lines.contains($0) } == [], "ChannelBridgeHost's public API:\n\(list.stdout)")
    }
}
