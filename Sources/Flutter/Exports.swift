// `import Flutter` brings Foundation, as on iOS, where Flutter's umbrella header imports UIKit
// (and UIKit Foundation): a plugin file that imports only Flutter can use `NSObject`, `Data`,
// `Timer`, `DispatchQueue` and `Thread`. Dispatch comes with Foundation. Nothing else is
// re-exported: ChannelBridge's own modules stay out of a plugin's scope unless it imports them.
@_exported public import Foundation
