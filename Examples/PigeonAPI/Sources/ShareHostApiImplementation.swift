import Flutter
import Foundation

/// The host side of the ShareApi: what an app writes against Pigeon's generated protocol.
///
/// Compiled, with the generated file, in the Swift 5 language mode, as Pigeon's generated code
/// is (its own test plugin builds it so): the generated Swift captures the non-Sendable `api` in
/// `Task { @MainActor in … }`, which the Swift 6 mode refuses.
final class ShareHostApiImplementation: ShareHostApi {
    private var saved: [ShareItem] = []
    private let flutterApi: ShareFlutterApi
    private let report: (String) -> Void

    /// `report` gets a line for each answer the Dart side gives to `itemSaved`.
    init(flutterApi: ShareFlutterApi, report: @escaping (String) -> Void) {
        self.flutterApi = flutterApi
        self.report = report
    }

    func getHostLanguage() throws -> String {
        "Swift"
    }

    func add(_ a: Int64, to b: Int64) throws -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        if overflow {
            throw PigeonError(code: "OVERFLOW", message: "\(a) + \(b) does not fit in 64 bits", details: nil)
        }
        return sum
    }

    func summarize(item: ShareItem) async throws -> ShareItem {
        ShareItem(
            title: item.title.uppercased(), note: "\(item.tags.count) tags", priority: item.priority,
            attachment: item.attachment, tags: item.tags.sorted())
    }

    func clear() throws {
        saved.removeAll()
    }

    /// Saves the item and tells the Dart side, through the Flutter API, that it was saved.
    func save(item: ShareItem) throws -> Int64 {
        guard !item.title.isEmpty else {
            throw PigeonError(code: "EMPTY_TITLE", message: "an item needs a title", details: nil)
        }
        saved.append(item)
        let (flutterApi, report) = (self.flutterApi, self.report)
        Task {
            do {
                report("itemSaved answered: \(try await flutterApi.itemSaved(item: item))")
            } catch let error as PigeonError {
                report("itemSaved failed: \(error.code): \(error.message ?? "")")
            }
        }
        return Int64(saved.count)
    }
}
