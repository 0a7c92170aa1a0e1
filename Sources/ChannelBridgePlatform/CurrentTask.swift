import CChannelBridgeSyscalls

/// The Swift task running on this thread, as an address that is only ever compared.
package enum CurrentTask {
    /// The current task's address, or 0 outside a task: what `withUnsafeCurrentTask` gives, read
    /// straight from the runtime's thread-local (a few instructions, not about 1,000).
    package static var address: UInt { UInt(bitPattern: cb_current_task()) }
}
