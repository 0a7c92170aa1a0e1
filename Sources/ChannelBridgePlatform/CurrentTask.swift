import CChannelBridgeSyscalls

/// The Swift task running on this thread, as an address that is only ever compared.
package enum CurrentTask {
    /// The current task's address, or 0 outside a task: what `withUnsafeCurrentTask` gives, read
    /// straight from the runtime's thread-local, without the unspecialized generic call
    /// `withUnsafeCurrentTask` goes through (see `cb_current_task`).
    package static var address: UInt { UInt(bitPattern: cb_current_task()) }
}
