#if CHANNELBRIDGE_PTHREAD_LOCKS
public import Glibc
#else
public import Synchronization
#endif

/// A value behind a lock: the lock for every piece of shared mutable state in this package.
///
/// It exists for ThreadSanitizer. On Linux, `Synchronization.Mutex` waits on a futex that TSan
/// does not intercept, so TSan sees no happens-before edge between two `Mutex.withLock` bodies and
/// reports every access inside them as a data race: the real races drown in that noise. TSan
/// intercepts `pthread_mutex_lock`/`unlock`. So the lock has two backings, chosen when the package
/// is built, with one API and the same semantics:
///
/// - normally a `Synchronization.Mutex`: cheap to lock and unlock when uncontended;
/// - with `CHANNELBRIDGE_PTHREAD_LOCKS` set in the environment of `swift build` (which
///   `Scripts/sanitize` does), a `pthread_mutex_t`, which ThreadSanitizer sees: several
///   times the cost, too much for the per-frame path of a normal build, fine for a sanitized
///   one.
///
/// The shape is `Mutex`'s (and SwiftNIO's `NIOLockedValueBox`), so call sites read the same:
///
/// ```swift
/// private let state = LockedValue(State())
/// let waiters = state.withLock { state in state.takeWaiters() }
/// for waiter in waiters { waiter.resume() }   // side effects after unlocking
/// ```
///
/// Neither lock may move once used, which a Swift value cannot promise, so the lock and the value
/// live in one heap allocation and `LockedValue` is a reference to it: copies share one lock and one
/// value. The lock is not recursive: calling `withLock` again from inside a body on the same value
/// deadlocks.
//
// `@usableFromInline` on a `package` type looks redundant, but without it Swift 6.3 does not
// specialize the type's `@inlinable` generics in other modules: every `withLock` then runs
// unspecialized and looks up `Mutex<Value>`'s metadata twice a call, a large share of a
// method-call round trip (`Scripts/count-instructions` shows it).
@usableFromInline
package struct LockedValue<Value> {
    @usableFromInline
    let storage: Storage

    /// A lock holding `initialValue`.
    @inlinable
    package init(_ initialValue: sending Value) {
        #if CHANNELBRIDGE_PTHREAD_LOCKS
        storage = Storage.make(initialValue)
        #else
        storage = Storage(initialValue)
        #endif
    }

    /// Runs `body` with the value while holding the lock, and returns what `body` returns.
    ///
    /// Keep `body` short and free of side effects that can call back (resuming continuations,
    /// calling handlers): return them and run them after `withLock` returns.
    @inlinable
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if CHANNELBRIDGE_PTHREAD_LOCKS
        let (value, mutex) = storage.pointers
        // The pointers are valid while `storage` lives: keep it alive past the unlock below.
        defer { extendLifetime(storage) }
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed")
        }
        return try body(&value.pointee)
        #else
        try storage.mutex.withLock(body)
        #endif
    }
}

extension LockedValue {
    /// Which lock this build uses.
    package enum Backing: Sendable, Equatable {
        /// `Synchronization.Mutex`, the default.
        case mutex
        /// `pthread_mutex_t`, when built with `CHANNELBRIDGE_PTHREAD_LOCKS` (for ThreadSanitizer).
        case pthreadMutex
    }

    /// The lock of this build: `Scripts/sanitize thread` checks it through the test suite.
    package static var backing: Backing {
        #if CHANNELBRIDGE_PTHREAD_LOCKS
        .pthreadMutex
        #else
        .mutex
        #endif
    }
}

// The value enters (`init`) and leaves (`withLock`'s argument and result) only as `sending`, so no
// reference to it outlives the lock in another isolation region: the reasoning that makes `Mutex` Sendable.
// @unchecked: the value is reached only inside `withLock`, under the lock.
extension LockedValue: @unchecked Sendable {}

#if CHANNELBRIDGE_PTHREAD_LOCKS
extension LockedValue {
    /// The value (header) and its `pthread_mutex_t` (the one element) in one allocation.
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        @inlinable
        static func make(_ initialValue: sending Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in initialValue }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                let result = pthread_mutex_init(mutex, nil)
                precondition(result == 0, "pthread_mutex_init failed")
            }
            return storage
        }

        /// The value and the mutex; valid while this storage is alive.
        @inlinable
        var pointers: (value: UnsafeMutablePointer<Value>, mutex: UnsafeMutablePointer<pthread_mutex_t>) {
            withUnsafeMutablePointers { ($0, $1) }
        }

        @inlinable
        deinit {
            withUnsafeMutablePointerToElements { mutex in
                let result = pthread_mutex_destroy(mutex)
                precondition(result == 0, "pthread_mutex_destroy failed")
                mutex.deinitialize(count: 1)
            }
        }
    }
}
#else
extension LockedValue {
    /// The `Mutex`, in a class so that it has one address and copies of the `LockedValue` share it.
    @usableFromInline
    final class Storage {
        @usableFromInline
        let mutex: Mutex<Value>

        @inlinable
        init(_ initialValue: sending Value) {
            mutex = Mutex(initialValue)
        }
    }
}
#endif
