import Flutter
import Testing

/// `FlutterError` is an `Error`, as an Objective-C class is to Swift on iOS: plugin code throws
/// it (`shared_preferences_foundation` does `throw FlutterError(…) as! Error`) and catches it as
/// itself.
@Suite struct FlutterErrorTests {
    func failing() throws -> Int {
        throw FlutterError(code: "Argument Error", message: "The provided Suite Name 'x' does not exist", details: "")
    }

    @Test func aThrownFlutterErrorIsCaughtAsItself() {
        #expect {
            try failing()
        } throws: { error in
            let caught = error as? FlutterError
            return caught?.code == "Argument Error"
                && caught?.message == "The provided Suite Name 'x' does not exist" && caught?.details as? String == ""
        }
        let asAny: Any = FlutterError(code: "c", message: nil, details: nil)
        #expect(asAny is any Error)
    }
}
