import Flutter
import Foundation

/// Seed 000's `ShareExtensionPluginRegistrant`, in Swift: registers the extension's plugins with a
/// registry, as Flutter's generated `GeneratedPluginRegistrant` does.
///
/// The seed also registers `SharedPreferenceAppGroupPlugin`; here that is the host's built-in
/// native plugin, already registered in every session under that name (so
/// `registry.hasPlugin("SharedPreferenceAppGroupPlugin")` is true, and asking for its registrar
/// again would be a duplicate key).
final class ShareExtensionPluginRegistrant: NSObject {
    static func register(with registry: any FlutterPluginRegistry) {
        NotesPlugin.register(with: registry.registrar(forPlugin: "NotesPlugin")!)
    }
}
