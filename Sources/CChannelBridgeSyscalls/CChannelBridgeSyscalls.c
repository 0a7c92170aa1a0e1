#include "CChannelBridgeSyscalls.h"

#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// Under a sanitizer, the wrappers: ThreadSanitizer intercepts them to see the order a socket gives
// between a send and the read of its bytes, AddressSanitizer to check the buffers they touch.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CB_LIBC_IO 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CB_LIBC_IO 1
#endif

#if defined(CB_LIBC_IO)

long cb_read(int fd, void *buffer, long count) { return read(fd, buffer, (size_t)count); }
long cb_send(int fd, const void *bytes, long count, int flags) { return send(fd, bytes, (size_t)count, flags); }
long cb_sendmsg(int fd, const void *message, int flags) { return sendmsg(fd, (const struct msghdr *)message, flags); }
long cb_poll(void *fds, unsigned long count, int milliseconds) { return poll((struct pollfd *)fds, (nfds_t)count, milliseconds); }

#else

long cb_read(int fd, void *buffer, long count) {
    return syscall(SYS_read, fd, buffer, (size_t)count);
}

long cb_send(int fd, const void *bytes, long count, int flags) {
    return syscall(SYS_sendto, fd, bytes, (size_t)count, flags, (const struct sockaddr *)0, (socklen_t)0);
}

long cb_sendmsg(int fd, const void *message, int flags) {
    return syscall(SYS_sendmsg, fd, message, flags);
}

long cb_poll(void *fds, unsigned long count, int milliseconds) {
#if defined(SYS_poll)
    return syscall(SYS_poll, fds, count, milliseconds);
#else
    // No `poll` system call (arm64): `ppoll` with the timeout as a timespec.
    struct timespec timeout = { milliseconds / 1000, (long)(milliseconds % 1000) * 1000000L };
    return syscall(SYS_ppoll, fds, count, milliseconds < 0 ? NULL : &timeout, NULL, (size_t)0);
#endif
}

#endif
