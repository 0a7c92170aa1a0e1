import Flutter

// Seed 001's containing app (SharedData.swift), its storage code unchanged but for the import
// line: it imports Flutter, so that `UserDefaults` is the app-group store the extension's host
// writes (`Flutter` re-exports Foundation). What Linux does not have is left out: SwiftUI's
// `ObservableObject` and `@Published` (Combine), and the key-value observation of the suite
// (`addObserver(_:forKeyPath:)`); here changes are seen with the store's change stream
// (`channelbridge prefs watch`, `AppGroupPreferences.changes()`), and `shared-text` reads once.
// `@MainActor` is the Swift 6 spelling of where a SwiftUI app keeps such an object.

@MainActor
class SharedData: NSObject {
    static let sharedUserInfo = SharedData()
    private let ud = UserDefaults(suiteName: "group.com.example.helloExtension")
    private final var keySharedText = "text"

    var sharedTexts: [String] = ["Apple", "Banana", "Orange"]

    private override init() {
        super.init()

        setSharedText()
    }

    func setSharedText() {
        // UserDefault().object(forKey: String) で指定したキーに格納されている値を取ってくる
        if let text = ud?.object(forKey: keySharedText) as? String {
            sharedTexts.append(text)

            // 読み込んだら現在の値を消す
            ud?.removeObject(forKey: keySharedText)
        }
    }
}
