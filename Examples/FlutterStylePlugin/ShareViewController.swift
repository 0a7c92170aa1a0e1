import ChannelBridgeHost
import Flutter

/// Seed 000's `ShareViewController` with UIKit taken out: a `FlutterPluginRegistry` that forwards
/// to its Flutter engine, sets up the share-extension channel and registers the extension's
/// plugins through its registrant. Apart from the missing `UIViewController`, the differences
/// are that the registry methods lose their `@objc` (Linux has no Objective-C runtime) and that
/// the engine is the session's `FlutterEngine` instead of a `FlutterViewController`.
///
/// Its storage code is the seed's, unchanged but for the import lines (this file imports Flutter
/// and not Foundation, so that `UserDefaults` is the app-group store) and for not copying a file
/// onto itself: what was shared is saved as JSON under "ShareKey" in the app group's
/// `UserDefaults`, and shared files are in the group's container. The seed's group is `group.info.shiosyakeyakini.miria`: start the host
/// with `--app-group group.info.shiosyakeyakini.miria` to share it with the containing app (and
/// for `--file` items, whose copy force-unwraps the group's container URL, as the seed does).
final class ShareViewController: NSObject, FlutterPluginRegistry {
    private let flutterViewController: FlutterEngine
    var extensionContext: ExtensionContext?
    private let sharedKey = "ShareKey"
    private let hostAppBundleIdentifier = "info.shiosyakeyakini.miria"
    private var shareText: [String] = []
    private var shareFiles: [SharedMediaFile] = []

    init(engine: FlutterEngine, extensionContext: ExtensionContext?) {
        self.flutterViewController = engine
        self.extensionContext = extensionContext
        super.init()
    }

    func registrar(forPlugin pluginKey: String) -> (any FlutterPluginRegistrar)? {
        return flutterViewController.registrar(forPlugin: pluginKey)
    }

    func hasPlugin(_ pluginKey: String) -> Bool {
        return flutterViewController.hasPlugin(pluginKey)
    }

    func valuePublished(byPlugin pluginKey: String) -> NSObject? {
        return flutterViewController.valuePublished(byPlugin: pluginKey)
    }

    func viewDidLoad() {
        let shareExtensionChannel = FlutterMethodChannel(
            name: "share_extension",
            binaryMessenger: flutterViewController.binaryMessenger)
        shareExtensionChannel.setMethodCallHandler({
            (call: FlutterMethodCall, result: @escaping FlutterResult) -> Void in
            switch call.method {
            case "exit":
                // As in the seed, `exit` is not answered: the extension ends. The caller sees the
                // call fail as its result is released unanswered and the host shuts down.
                self.extensionContext!.completeRequest(returningItems: nil)
            default:
                result(FlutterMethodNotImplemented)
            }
        })

        ShareExtensionPluginRegistrant.register(with: self)

        // The seed loads each attachment from its NSItemProvider; here they are the host's input
        // items, and what the seed does with each loaded item follows.
        for content in extensionContext?.request.inputItems ?? [] {
            let title = content.title ?? content.contentText
            for attachment in content.attachments {
                switch attachment.content {
                case .text(let item):
                    shareText.append(item)
                case .url(let string):
                    guard let item = URL(string: string) else { continue }
                    let text: String
                    if title != nil {
                        text = "[\(title ?? "")](\(item.absoluteString))"
                    } else {
                        text = item.absoluteString
                    }
                    shareText.append(text)
                case .file(let path, _):
                    let url = URL(fileURLWithPath: path)
                    // The seed copies the file into the group's container. The host has done
                    // that already for a `--file` item (into its first group's container, under
                    // the same name): copying it onto itself would remove it, so only the path
                    // the seed computes is kept, which is the host's copy.
                    let fileName = getFileName(from: url, type: .file)
                    let newPath = FileManager.default
                        .containerURL(forSecurityApplicationGroupIdentifier: "group.\(hostAppBundleIdentifier)")!
                        .appendingPathComponent(fileName)
                    let copied =
                        newPath.standardizedFileURL == url.standardizedFileURL || copyFile(at: url, to: newPath)
                    if copied {
                        shareFiles.append(
                            SharedMediaFile(path: newPath.absoluteString, thumbnail: nil, duration: nil, type: .file))
                    }
                }
            }
        }
        save()
    }

    private func save() {
        let userDefaults = UserDefaults(suiteName: "group.\(self.hostAppBundleIdentifier)")
        let encoder = JSONEncoder()
        let json = try? encoder.encode(SendData(text: self.shareText, files: self.shareFiles))
        guard let encoded = json else {
            return
        }
        userDefaults?.set(String(data: encoded, encoding: .utf8), forKey: self.sharedKey)
        userDefaults?.synchronize()
    }

    func getExtension(from url: URL, type: SharedMediaType) -> String {
        let parts = url.lastPathComponent.components(separatedBy: ".")
        var ex: String? = nil
        if parts.count > 1 {
            ex = parts.last
        }

        if ex == nil {
            switch type {
            case .image:
                ex = "PNG"
            case .video:
                ex = "MP4"
            case .file:
                ex = "TXT"
            }
        }
        return ex ?? "Unknown"
    }

    func getFileName(from url: URL, type: SharedMediaType) -> String {
        var name = url.lastPathComponent

        if name.isEmpty {
            name = UUID().uuidString + "." + getExtension(from: url, type: type)
        }

        return name
    }

    func copyFile(at srcURL: URL, to dstURL: URL) -> Bool {
        do {
            if FileManager.default.fileExists(atPath: dstURL.path) {
                try FileManager.default.removeItem(at: dstURL)
            }
            try FileManager.default.copyItem(at: srcURL, to: dstURL)
        } catch let error {
            print("Cannot copy item at \(srcURL) to \(dstURL): \(error)")
            return false
        }
        return true
    }

    class SharedMediaFile: Codable {
        var path: String  // can be image, video or url path. It can also be text content
        var thumbnail: String?  // video thumbnail
        var duration: Double?  // video duration in milliseconds
        var type: SharedMediaType

        init(path: String, thumbnail: String?, duration: Double?, type: SharedMediaType) {
            self.path = path
            self.thumbnail = thumbnail
            self.duration = duration
            self.type = type
        }
    }

    struct SendData: Encodable {
        let text: [String]
        let files: [SharedMediaFile]
    }

    enum SharedMediaType: Int, Codable {
        case image
        case video
        case file
    }
}

/// The part of `NSExtensionContext` the seed uses, over the host's extension request.
final class ExtensionContext: Sendable {
    let request: ExtensionRequest

    init(_ request: ExtensionRequest) {
        self.request = request
    }

    func completeRequest(returningItems items: [Any]?, completionHandler: ((Bool) -> Void)? = nil) {
        let completed = request.end(.completed) == nil
        completionHandler?(completed)
    }
}
