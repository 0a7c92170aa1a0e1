// For `program_invocation_short_name`.
#define _GNU_SOURCE
#include "CChannelBridgeSyscalls.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
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

_Thread_local const cb_running_handler *cb_running __attribute__((tls_model("initial-exec"))) = 0;

static const int cb_fatal_signals[] = { SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV };
static struct sigaction cb_previous_actions[sizeof cb_fatal_signals / sizeof cb_fatal_signals[0]];

static const char *cb_signal_name(int number) {
    switch (number) {
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    default: return "SIGSEGV";
    }
}

// A line of at most 1024 bytes, built without the C library (its string functions are not all
// async-signal-safe): what does not fit is cut, and the line still ends with a newline.
typedef struct cb_line { char bytes[1024]; long used; } cb_line;

static void cb_line_append(cb_line *line, const char *bytes, long count) {
    for (long index = 0; index < count && line->used < (long)sizeof line->bytes - 1; index++) {
        line->bytes[line->used++] = bytes[index];
    }
}

static void cb_line_append_text(cb_line *line, const char *text) {
    long count = 0;
    while (text[count] != 0) count++;
    cb_line_append(line, text, count);
}

static void cb_report_fatal_signal(int number, siginfo_t *info, void *context) {
    const cb_running_handler *running = cb_running;
    long slot = 0;
    while (cb_fatal_signals[slot] != number) slot++;
    // What was there before reports first (Swift's backtracer prints the crashed thread and
    // returns), so that this line is the last one before the process ends.
    const struct sigaction *previous = &cb_previous_actions[slot];
    if (previous->sa_flags & SA_SIGINFO) {
        if (previous->sa_sigaction != 0) previous->sa_sigaction(number, info, context);
    } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        previous->sa_handler(number);
    }
    if (running != 0) {
        cb_line line;
        line.used = 0;
        cb_line_append_text(&line, program_invocation_short_name);
        cb_line_append_text(&line, ": fatal signal ");
        cb_line_append_text(&line, cb_signal_name(number));
        cb_line_append_text(&line, " in the handler of ");
        if (running->method != 0) {
            cb_line_append_text(&line, "method '");
            cb_line_append(&line, running->method, running->method_length);
            cb_line_append_text(&line, "' on ");
        }
        cb_line_append_text(&line, "channel '");
        cb_line_append(&line, running->channel, running->channel_length);
        cb_line_append_text(&line, "'");
        line.bytes[line.used++] = '\n';
        long written = 0;
        while (written < line.used) {
            long count = write(2, line.bytes + written, (size_t)(line.used - written));
            if (count < 0 && errno == EINTR) continue;
            if (count <= 0) break;
            written += count;
        }
    }
    // The default action ends the process by this signal: raised now, it is delivered as the
    // handler returns (the signal is blocked while its handler runs).
    struct sigaction fallback;
    for (unsigned long index = 0; index < sizeof fallback; index++) ((char *)&fallback)[index] = 0;
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(number, &fallback, 0);
    raise(number);
}

int cb_install_fatal_signal_report(void) {
    for (unsigned long slot = 0; slot < sizeof cb_fatal_signals / sizeof cb_fatal_signals[0]; slot++) {
        struct sigaction action;
        for (unsigned long index = 0; index < sizeof action; index++) ((char *)&action)[index] = 0;
        action.sa_sigaction = cb_report_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(cb_fatal_signals[slot], &action, &cb_previous_actions[slot]) != 0) return -1;
    }
    return 0;
}
