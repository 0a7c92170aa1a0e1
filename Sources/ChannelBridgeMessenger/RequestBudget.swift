import ChannelBridgePlatform

/// Bytes of the peers' requests in flight, shared by every connection that is given it
/// (`MessengerConnection.Options.requestBudget`): a process that serves many peers bounds the
/// memory their requests take together (wire protocol §4.10).
///
/// A request of `requestChargeThreshold` bytes or more is charged `max(size, minimumCharge)`
/// bytes from the moment its frame begins (or, read whole at once, its delivery to an asynchronous
/// handler) until its handler answers (or it is cancelled, or its connection ends). A request
/// that does not fit stops its connection's reading with its body unread, unless that connection
/// has a call of its own pending (its reply may be behind): the request is then read and held,
/// and the connection reads only answers to its own calls meanwhile. A request is admitted when
/// it fits in what is left, or when nothing is charged at all: a request larger than the whole
/// budget is served alone rather than never.
///
/// ```swift
/// let budget = RequestBudget(capacity: 256 << 20)
/// var options = MessengerConnection.Options()
/// options.requestBudget = budget   // the same object for every connection
/// ```
public final class RequestBudget: Sendable {
    /// The most bytes charged at once, but for a single request larger than this.
    public let capacity: Int

    /// Requests smaller than this are not charged: what they cost is bounded per connection by
    /// `maxHandlersInFlight`, and the calls that make up most traffic take no lock for it.
    package static let requestChargeThreshold = 4 << 10
    /// The least a charged request takes from the budget: the Standard codec's slack
    /// (`StandardMessageCodec.allowanceSlack`), which decoding may build beyond its per-byte
    /// allowance whatever the request's size. So an admitted request costs at most 8 × its charge:
    /// its frame, and 6 × its size + the slack in decoded values.
    package static let minimumCharge = 2 << 20
    /// The default capacity of the extension host's budget.
    public static let defaultCapacity = 256 << 20

    private struct State {
        var charged = 0
        /// A wake-up per connection that has a request waiting; each is called once, by the
        /// release that may let it in, and registered again if the request still does not fit.
        var waiters: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    // `LockedValue`, not `Mutex`: ThreadSanitizer must see the lock (Docs/sanitizers.md).
    private let state = LockedValue(State())

    /// A budget of `capacity` bytes (at least 1).
    public init(capacity: Int = RequestBudget.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// Bytes charged now.
    public var charged: Int { state.withLock { $0.charged } }

    /// What a request of `size` bytes is charged; 0 when it is not charged.
    package static func charge(forRequestOf size: Int) -> Int {
        size < requestChargeThreshold ? 0 : max(size, minimumCharge)
    }

    /// Charges `bytes` when they fit (or nothing else is charged) and returns true; otherwise
    /// registers `wake` for `waiter`, to be called once by a release, and returns false. Takes no
    /// other lock and calls nothing.
    package func acquire(_ bytes: Int, waiter: ObjectIdentifier, wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.charged == 0 || state.charged + bytes <= capacity else {
                state.waiters[waiter] = wake
                return false
            }
            state.charged += bytes
            return true
        }
    }

    /// Whether `bytes` would be admitted now; when not, registers `wake` as `acquire` does, so a
    /// reader that then waits is woken by the next release.
    package func admits(_ bytes: Int, waiter: ObjectIdentifier, wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            if state.charged == 0 || state.charged + bytes <= capacity { return true }
            state.waiters[waiter] = wake
            return false
        }
    }

    /// Gives back `bytes` and wakes every connection that waits, after unlocking: each looks
    /// again, and those whose request still does not fit register again.
    package func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        let wakes = state.withLock { state -> [@Sendable () -> Void] in
            state.charged -= bytes
            guard !state.waiters.isEmpty else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for wake in wakes { wake() }
    }

    /// `waiter`'s connection ended: it waits no more.
    package func forget(_ waiter: ObjectIdentifier) {
        _ = state.withLock { $0.waiters.removeValue(forKey: waiter) }
    }
}
