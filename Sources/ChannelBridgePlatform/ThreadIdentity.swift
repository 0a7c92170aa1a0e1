import Glibc

/// Which OS thread is running (`pthread_self`), as a plain number that can sit in an atomic.
package enum ThreadIdentity {
    /// The calling thread's identity; equal numbers are the same live thread.
    package static var current: UInt { UInt(pthread_self()) }
}
