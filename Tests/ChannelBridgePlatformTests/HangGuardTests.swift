import ChannelBridgeTestSupport
import Testing

/// The guard every test runs under: a body that never finishes fails quickly, naming the test.
@Suite struct HangGuardTests {
    @Test func aBodyThatNeverFinishesFailsNamingTheTestAndLine() async throws {
        let line = #line + 1
        let error = await #expect(throws: HangGuardExpired.self) {
            try await withHangGuard(seconds: 1) { () async throws in
                try await untilCancelled()
            }
        }
        let scaled = HangGuardScale.scaled(1)
        #expect(
            error?.description
                == "hang guard: aBodyThatNeverFinishesFailsNamingTheTestAndLine() (ChannelBridgePlatformTests/HangGuardTests.swift:\(line)) did not finish within \(scaled) s"
        )
    }

    @Test func aBodyThatFinishesReturnsItsValue() async throws {
        #expect(try await withHangGuard(seconds: 1) { 42 } == 42)
    }
}
