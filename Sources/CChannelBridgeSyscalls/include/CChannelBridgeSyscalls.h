#ifndef CCHANNELBRIDGE_SYSCALLS_H
#define CCHANNELBRIDGE_SYSCALLS_H

// No system header here: one included through this module would make Swift take its types
// (`timespec`, ...) as this module's. Plain C types instead; `message` is a `struct msghdr *`.

// `read` and `send` for a connection's socket, made through `syscall(2)`. glibc's own wrappers
// are thread-cancellation points: in a process with threads each one turns asynchronous
// cancellation on before the system call and off after it, on every call. Nothing in this
// package cancels threads (a reader is woken by `shutdown`, a writer by a semaphore), so that
// buys nothing. Same results as the wrappers: the count, or -1 with `errno` set. In a
// sanitizer's build they are the wrappers themselves, which the sanitizer intercepts.

long cb_read(int fd, void *buffer, long count);
long cb_send(int fd, const void *bytes, long count, int flags);
long cb_sendmsg(int fd, const void *message, int flags);
// `poll` of `count` `struct pollfd`s at `fds`, made the same way.
long cb_poll(void *fds, unsigned long count, int milliseconds);

// The task running on this thread (null outside a task), as Swift's concurrency runtime keeps it
// in a thread-local, for `RuntimeShim.currentTaskAddress` alone. Swift code cannot name the runtime's entry point
// (`swift_task_getCurrent`) without a reserved-name warning that "will become an error", and the
// public `withUnsafeCurrentTask` reaches it through an unspecialized generic call, too
// costly for a per-call path.
// Inline here, not in a .c file: with a second C compile unit in the binary, valgrind 3.19 gives up
// reading its debug information ("possibly corrupted debuginfo"), and `Scripts/count-instructions`
// with it.
const void *swift_task_getCurrent(void) __attribute__((swiftcall));
static inline const void *cb_current_task(void) { return swift_task_getCurrent(); }

// The channel handler running on this thread, for the report of a fatal signal
// (`RunningHandler`, `FatalSignalReport`): the channel's and the method's UTF-8 bytes, which the
// running call keeps alive while it is recorded; `method` is null for a message handler.
typedef struct cb_running_handler {
    const char *channel;
    long channel_length;
    const char *method;
    long method_length;
} cb_running_handler;

// Initial-exec: a plain thread-pointer-relative access, no `__tls_get_addr` call per handler; the
// module is linked into executables, never loaded with dlopen.
extern _Thread_local const cb_running_handler *cb_running __attribute__((tls_model("initial-exec")));

// Records `next` as this thread's running handler and returns the one it replaces (restored when
// `next` returns, so nested handlers unwind in order). One thread-local load and store.
static inline const cb_running_handler *cb_running_handler_exchange(const cb_running_handler *next) {
    const cb_running_handler *previous = cb_running;
    cb_running = next;
    return previous;
}

// Installs the report of fatal signals (SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV) for
// the process: the handler that was installed before (Swift's backtracer, say) runs first; then,
// when the signal came on a thread running a recorded handler, one line goes to standard error,
// `PROGRAM: fatal signal SIGNAME in the handler of method 'M' on channel 'C'` (or `... in the
// handler of channel 'C'`); then the signal's default action ends the process. Async-signal-safe:
// only `write`, `sigaction` and `raise` in the handler. Returns 0, or -1 with `errno`.
int cb_install_fatal_signal_report(void);

#endif
