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
// in a thread-local: `CurrentTask.address`. Swift code cannot name the runtime's entry point
// (`swift_task_getCurrent`) without a reserved-name warning that "will become an error", and the
// public `withUnsafeCurrentTask` reaches it through an unspecialized generic call, too
// costly for a per-call path.
// Inline here, not in a .c file: with a second C compile unit in the binary, valgrind 3.19 gives up
// reading its debug information ("possibly corrupted debuginfo"), and `Scripts/count-instructions`
// with it.
const void *swift_task_getCurrent(void) __attribute__((swiftcall));
static inline const void *cb_current_task(void) { return swift_task_getCurrent(); }

#endif
