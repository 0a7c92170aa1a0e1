public import Glibc

/// A value behind a `pthread_mutex_t`: the lock for every piece of shared mutable state in this
/// package.
///
/// It exists for ThreadSanitizer. On Linux, `Synchronization.Mutex` waits on a futex that TSan
/// does not intercept, so TSan sees no happens-before edge between two `Mutex.withLock` bodies and
/// reports every access inside them as a data race: the real races drown in that noise. TSan
/// intercepts `pthread_mutex_lock`/`unlock`, so state behind this lock is checked for what it is.
/// The shape is `Mutex`'s (and SwiftNIO's `NIOLockedValueBox`), so call sites read the same:
///
/// ```swift
/// private let state = LockedValue(State())
/// let waiters = state.withLock { state in state.takeWaiters() }
/// for waiter in waiters { waiter.resume() }   // side effects after unlocking
/// ```
///
/// The mutex needs an address that never moves, which a Swift value cannot promise, so the value
/// and the mutex live together in one heap allocation and `LockedValue` is a reference to it:
/// copies share one lock and one value. The mutex is a default (non-recursive) one: calling
/// `withLock` again from inside a body on the same value deadlocks, as with `Mutex`.
package struct LockedValue<Value> {
    @usableFromInline
    let storage: Storage

    /// A lock holding `initialValue`.
    @inlinable
    package init(_ initialValue: sending Value) {
        storage = Storage.make(initialValue)
    }

    /// Runs `body` with the value while holding the lock, and returns what `body` returns.
    ///
    /// Keep `body` short and free of side effects that can call back (resuming continuations,
    /// calling handlers): return them and run them after `withLock` returns.
    @inlinable
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let (value, mutex) = storage.pointers
        // The pointers are valid while `storage` lives: keep it alive past the unlock below.
        defer { extendLifetime(storage) }
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body(&value.pointee)
    }
}

// @unchecked: the value is reached only inside `withLock`, under the mutex, and it enters (`init`)
// and leaves (`withLock`'s argument and result) only as `sending`, so no reference to it outlives
// the lock in another isolation region: the same reasoning that makes `Mutex` Sendable.
extension LockedValue: @unchecked Sendable {}

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
                precondition(result == 0, "pthread_mutex_init failed: \(result)")
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
                precondition(result == 0, "pthread_mutex_destroy failed: \(result)")
                mutex.deinitialize(count: 1)
            }
        }
    }
}
