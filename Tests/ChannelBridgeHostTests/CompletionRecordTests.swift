import ChannelBridgeTestSupport
import ChannelBridgeCodec
import ChannelBridgeHost
import Testing

@Suite struct CompletionRecordTests {
    @Test func recordsAreOneLineOfCompactJSON() {
        #expect(
            CompletionRecord(outcome: .completed).jsonLine
                == #"{"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[]}"#)
        let record = CompletionRecord(
            outcome: .cancelled, returnedItems: nil,
            error: MethodError(code: "E", message: "naïve \"quote\"\n", details: .list([.int64(1), .float64(-0.0)])),
            openedURLs: [OpenedURL(url: "https://a/é", opened: true)])
        #expect(
            record.jsonLine
                == #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"E","message":"naïve \"quote\"\n","details":[{"int64":"1"},{"float64":"-0.0"}]},"openedURLs":[{"url":"https://a/é","opened":true}]}"#
        )
        #expect(
            CompletionRecord(outcome: .interrupted(.sigint), error: MethodError(code: "SIGINT")).jsonLine
                == #"{"outcome":"interrupted","returnedItems":null,"error":{"code":"SIGINT","message":null,"details":null},"openedURLs":[]}"#
        )
    }

    @Test func aShutdownThatRanOutOfTimeAddsItsLastMember() {
        var record = CompletionRecord(outcome: .interrupted(.sigterm), error: MethodError(code: "SIGTERM"))
        record.shutdownDeadlinePassed = ShutdownDeadlinePassed(
            timeout: .milliseconds(2500), unfinishedCalls: 3,
            openSessions: 2)
        #expect(
            record.jsonLine
                == #"{"outcome":"interrupted","returnedItems":null,"error":{"code":"SIGTERM","message":null,"details":null},"openedURLs":[],"shutdownDeadlinePassed":{"seconds":2.5,"unfinishedCalls":3,"openSessions":2}}"#
        )
        #expect(record.outcome.exitStatus == 143)
    }

    @Test func outcomesHaveTheirExitStatuses() {
        #expect(
            [HostOutcome.completed, .cancelled, .expired, .interrupted(.sigint), .interrupted(.sigterm)].map(
                \.exitStatus)
                == [0, 2, 3, 130, 143])
    }
}
