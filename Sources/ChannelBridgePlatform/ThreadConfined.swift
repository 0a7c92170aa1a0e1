#if DEBUG
// Only a debug build keeps the owner, in an `Atomic` that inlinable code reaches.
public import Synchronization
#endif

/// State that one thread at a time touches without a lock, checked in debug builds.
///
/// Which thread may touch it moves only where the owner's rules hand it over: that thread calls
/// `claim()` (for a connection's state, each delivery of received bytes begins with one, and
/// deliveries never overlap). Every access goes through `withValue`, which in a debug build
/// asserts that the calling thread is the last that claimed the box (or that none has yet).
/// A release build checks nothing and keeps nothing beside the value: `withValue` is then the
/// plain access it wraps, with the same code as a stored property of the owner.
///
/// ```swift
/// @exclusivity(unchecked) nonisolated(unsafe) var reader = ThreadConfined(ReaderState())
/// reader.claim()                                  // a delivery begins on this thread
/// let last = reader.withValue { $0.deliveringLastFrame }
/// ```
///
/// The owner is kept with relaxed atomics, which order nothing: under ThreadSanitizer the check
/// hides no race on the value itself.
@usableFromInline
package struct ThreadConfined<Value>: ~Copyable {
    @usableFromInline
    var value: Value
    #if DEBUG
    /// The thread that claimed the box last (`ThreadIdentity.current`), 0 before any claim.
    @usableFromInline
    let owner = Atomic<UInt>(0)

    // Called, not inlined: only debug builds have them, where a call costs nothing that matters.
    @usableFromInline
    func recordOwner() {
        owner.store(ThreadIdentity.current, ordering: .relaxed)
    }

    @usableFromInline
    var ownerIsCurrentOrNone: Bool {
        let owner = owner.load(ordering: .relaxed)
        return owner == 0 || owner == ThreadIdentity.current
    }
    #endif

    @inlinable
    package init(_ value: consuming Value) {
        self.value = value
    }

    /// From now on the calling thread alone may touch the value, until another claims it.
    @inlinable @inline(__always)
    package func claim() {
        #if DEBUG
        recordOwner()
        #endif
    }

    /// Whether the calling thread may touch the value now: it claimed the box last, or none has.
    /// Always true in a release build, which checks nothing. What `withValue` asserts, for tests.
    @inlinable
    package var isHeldHere: Bool {
        #if DEBUG
        ownerIsCurrentOrNone
        #else
        true
        #endif
    }

    /// Runs `body` with the value; in a debug build, first asserts that the calling thread
    /// holds the box (`isHeldHere`), naming the access's place when it does not.
    @inlinable @inline(__always)
    package mutating func withValue<Result, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line,
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        assert(isHeldHere, "thread-confined state touched from a thread that does not hold it", file: file, line: line)
        return try body(&value)
    }
}
