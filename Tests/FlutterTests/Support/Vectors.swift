import ChannelBridgeConformance
import ChannelBridgeTestSupport
import Foundation

/// The Standard codec vector files of this repository, and Flutter's shared sample when present.
enum Vectors {
    static let projectFiles: [String] =
        ((try? VectorFile.files(in: packageRoot.appendingPathComponent("Protocol/vectors").path)) ?? [])
        .filter { ($0 as NSString).lastPathComponent.hasPrefix("standard-") }

    static var sharedSample: String? {
        sharedDirectory.map { $0.appendingPathComponent("vectors/flutter-sample.json").path }
            .flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
    }
}
