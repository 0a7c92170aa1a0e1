import Flutter
import Foundation
import Synchronization
import Testing

/// `sharedInstance()` makes a codec class's instance with no lock held: a subclass's initializer
/// may ask for another shared codec, from its own thread or another.
@Suite struct FlutterCodecSharedInstanceTests {
    @Test func aSubclassInitializerCanAskForAnotherSharedCodec() {
        let codec = CodecAskingForOthers.sharedInstance()
        #expect(
            codec.gotOtherCodec == true, "another thread could not get a shared codec while this one was being made")
        #expect(CodecAskingForOthers.sharedInstance() === codec)
        #expect(FlutterStandardMessageCodec.sharedInstance() === FlutterStandardMessageCodec.sharedInstance())
    }
}

/// A Pigeon-style subclass whose initializer gets another shared codec, on another thread while
/// it waits (on this thread, a lock held would trap as taken twice rather than fail the test).
// @unchecked: its one stored property is a `let`.
private final class CodecAskingForOthers: FlutterStandardMessageCodec, @unchecked Sendable {
    let gotOtherCodec: Bool

    required init(readerWriter: FlutterStandardReaderWriter) {
        gotOtherCodec = finishesOnAnotherThread { _ = FlutterJSONMessageCodec.sharedInstance() }
        super.init(readerWriter: readerWriter)
    }
}
