/// Where a host's sessions run (`--isolation`, Protocol/extension-host.md §1.8).
package enum HostIsolation: String, Sendable, Equatable {
    /// Each session in a worker process of its own: a handler that traps ends only its session.
    case session
    /// Every session in the host's process: a handler that traps ends the host.
    case none
}
