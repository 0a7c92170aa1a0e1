import ChannelBridgePlatform
import Foundation

/// Standard input, one line at a time, read on a thread of its own so that a blocking read never
/// holds a thread of the concurrency pool. The thread reads a line only when one is asked for, so
/// at most one line is held here whatever the size of the input.
final class StandardInputLines: Sendable {
    private struct State {
        var waiter: CheckedContinuation<String?, Never>?
        var ended = false
    }

    private let state = LockedValue(State())
    private let requests = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in readLoop() }
        thread.name = "cb stdin"
        thread.start()
    }

    /// The next line without its newline, or nil at the end of input. One caller at a time.
    func next() async -> String? {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Bool in
                if state.ended { return true }
                state.waiter = continuation
                return false
            }
            if ended { continuation.resume(returning: nil) } else { requests.signal() }
        }
    }

    private func readLoop() {
        while true {
            requests.wait()
            // A terminal's end of input (Ctrl-D) is not sticky: once seen, it ends the input for good.
            let line = readLine(strippingNewline: true)
            let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
                if line == nil { state.ended = true }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: line)
            if line == nil { return }
        }
    }
}
