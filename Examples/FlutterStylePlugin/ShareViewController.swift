import ChannelBridgeHost
import Flutter
import Foundation

/// Seed 000's `ShareViewController` with UIKit taken out: a `FlutterPluginRegistry` that forwards
/// to its Flutter engine, sets up the share-extension channel and registers the extension's
/// plugins through its registrant. Apart from the missing `UIViewController`, the differences
/// are that the registry methods lose their `@objc` (Linux has no Objective-C runtime) and that
/// the engine is the session's `FlutterEngine` instead of a `FlutterViewController`.
final class ShareViewController: NSObject, FlutterPluginRegistry {
    private let flutterViewController: FlutterEngine
    var extensionContext: ExtensionContext?

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
