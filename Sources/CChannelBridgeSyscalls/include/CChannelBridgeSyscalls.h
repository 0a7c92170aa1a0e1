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
/// `read` returning minus the error number on failure instead of setting `errno`: for a
/// non-blocking descriptor polled on a hot path, where "nothing queued" (`-EAGAIN`) is the usual
/// answer and the C library's error path is most of the call's cost.
long cb_read_now(int fd, void *buffer, long count);
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

// An isolated session's worker (extension-host.md §1.8): `fd` is the client's socket, whose frames
// `cb_send`/`cb_sendmsg` then count as they go out, and `report_fd` the hand-off socket to the
// host. The report of a fatal signal then also sends the client GOODBYE sessionCrashed (code 8)
// naming the signal and the running handler, unless a send is under way or a frame is partly
// written (the client then sees end of file alone), writes `died by SIGNAME[ in the handler of
// ...]` and a newline on `report_fd`, shuts `fd` down (the client reads end of file at once, not
// when the process has died) and makes every later send on `fd` fail with EPIPE. Call it
// once, before the session's connection exists.
void cb_guard_session_socket(int fd, int report_fd);

// Whether the report of a fatal signal has begun for the guarded session (the process is dying:
// its other threads must not end it some other way first).
int cb_session_crashing(void);

// Starts `path` with `arguments` and `environment` (null-terminated arrays) by `posix_spawn`: the
// child's descriptor `targets[i]` is the parent's `sources[i]` (every other one is closed on
// exec, as this package opens them all close-on-exec), its standard input and output are
// /dev/null, its standard error the parent's, and it leads a process group of its own. The pid
// in `*pid`; returns 0 or an error number.
int cb_spawn(const char *path, char *const *arguments, char *const *environment, const int *sources,
             const int *targets, int count, int *pid);

// Sends `count` bytes (at least one) with descriptor `fd` attached (`SCM_RIGHTS`) on the Unix
// socket `socket`, blocking, without SIGPIPE: the bytes sent, or -1 with `errno`.
long cb_send_descriptor(int socket, int fd, const void *bytes, long count);

// Receives up to `count` bytes from `socket`, blocking, and the descriptor that came with them
// (close-on-exec) in `*fd`, or -1 when none came: the bytes received (0 at end of file), or -1
// with `errno`. Extra descriptors are closed.
long cb_receive_descriptor(int socket, int *fd, void *bytes, long count);

// `pidfd_open(pid, 0)`: a descriptor that polls readable once process `pid` has ended, or -1 with
// `errno`.
int cb_pidfd_open(int pid);

#endif
