import ChannelBridgeTestSupport
import Flutter
import Foundation
import Testing

/// The log handler is the app's code: the engine logs with its own lock released, so a handler
/// that reads the engine (from any thread) does not wait on it.
@Suite struct FlutterEngineLogHandlerTests {
    init() { LogCapture.start() }

    @Test func theWarningForAHandlerSetAfterTeardownIsLoggedWithTheEngineUnlocked() async throws {
        let session = EngineSession()
        defer { session.close() }
        let engine = session.engine
        let name = uniqueChannel("late")
        let engineReadable = Box<Bool?>(nil)
        LogCapture.onLine(mentioning: name) {
            engineReadable.value = finishesOnAnotherThread { _ = engine.isDestroyed }
        }
        engine.destroyContext()
        let connection = engine.setMessageHandlerOnChannel(name) { _, reply in reply(nil) }
        #expect(connection == 0)
        #expect(
            engineReadable.value == true,
            "another thread could not read the engine while the engine's warning was in the log handler")
        #expect(
            LogCapture.lines(mentioning: name) == [
                "warning: A handler for channel '\(name)' was set after the engine was torn down; it is not installed"
            ])
    }
}
