// For `program_invocation_short_name`.
#define _GNU_SOURCE
#include "CChannelBridgeSyscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>
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
static long cb_raw_send(int fd, const void *bytes, long count, int flags) { return send(fd, bytes, (size_t)count, flags); }
static long cb_raw_sendmsg(int fd, const void *message, int flags) { return sendmsg(fd, (const struct msghdr *)message, flags); }
long cb_poll(void *fds, unsigned long count, int milliseconds) { return poll((struct pollfd *)fds, (nfds_t)count, milliseconds); }

#else

long cb_read(int fd, void *buffer, long count) {
    return syscall(SYS_read, fd, buffer, (size_t)count);
}

static long cb_raw_send(int fd, const void *bytes, long count, int flags) {
    return syscall(SYS_sendto, fd, bytes, (size_t)count, flags, (const struct sockaddr *)0, (socklen_t)0);
}

static long cb_raw_sendmsg(int fd, const void *message, int flags) {
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

long cb_read_now(int fd, void *buffer, long count) {
#if !defined(CB_LIBC_IO) && defined(__x86_64__)
    // The system call itself: the kernel returns minus the error number in rax.
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "0"((long)SYS_read), "D"((long)fd), "S"(buffer), "d"(count)
                     : "rcx", "r11", "memory");
    return result;
#else
    long result = cb_read(fd, buffer, count);
    return result >= 0 ? result : -(long)errno;
#endif
}

// The session socket of an isolated session's worker (extension-host.md §1.8), whose frames are
// counted as they are sent so that the report of a fatal signal can tell whether a GOODBYE may
// follow them. Set once, before the session's connection exists; -1 in every other process.
static int cb_guarded_fd = -1;
// Where the report line also goes for the host: the worker's hand-off socket.
static int cb_report_fd = -1;
// A send on the guarded socket is under way. With `cb_guard_crashed`, a Dekker pair (both
// sequentially consistent): a sender raises `busy` and then checks `crashed`; the report raises
// `crashed` and then checks `busy`, so at most one of them goes on to write.
static atomic_int cb_guard_busy = 0;
static atomic_int cb_guard_crashed = 0;
// Where the stream of frames sent stands: the bytes of the current frame's body still to send,
// and how many of its four length bytes have been sent. Only senders touch them, one at a time
// (the transport has one flusher per socket); the report reads them after seeing `busy` clear.
static unsigned long cb_guard_body_left = 0;
static unsigned char cb_guard_length[4];
static int cb_guard_length_have = 0;

int cb_session_crashing(void) { return atomic_load(&cb_guard_crashed); }

void cb_guard_session_socket(int fd, int report_fd) {
    cb_report_fd = report_fd;
    cb_guarded_fd = fd;
}

static void cb_guard_advance(const unsigned char *bytes, long count) {
    long index = 0;
    while (index < count) {
        if (cb_guard_body_left > 0) {
            long take = count - index;
            if ((unsigned long)take > cb_guard_body_left) take = (long)cb_guard_body_left;
            index += take;
            cb_guard_body_left -= (unsigned long)take;
            continue;
        }
        cb_guard_length[cb_guard_length_have++] = bytes[index++];
        if (cb_guard_length_have == 4) {
            // Little-endian (wire protocol §2); the length counts the kind byte and the body.
            cb_guard_body_left = (unsigned long)cb_guard_length[0] | ((unsigned long)cb_guard_length[1] << 8)
                | ((unsigned long)cb_guard_length[2] << 16) | ((unsigned long)cb_guard_length[3] << 24);
            cb_guard_length_have = 0;
        }
    }
}

// Whether a send may start: false once the report has begun (the process is dying).
static int cb_guard_enter(void) {
    atomic_store(&cb_guard_busy, 1);
    if (atomic_load(&cb_guard_crashed)) {
        atomic_store(&cb_guard_busy, 0);
        errno = EPIPE;
        return 0;
    }
    return 1;
}

long cb_send(int fd, const void *bytes, long count, int flags) {
    if (fd != cb_guarded_fd) return cb_raw_send(fd, bytes, count, flags);
    if (!cb_guard_enter()) return -1;
    long sent = cb_raw_send(fd, bytes, count, flags);
    if (sent > 0) cb_guard_advance((const unsigned char *)bytes, sent);
    atomic_store(&cb_guard_busy, 0);
    return sent;
}

long cb_sendmsg(int fd, const void *message, int flags) {
    if (fd != cb_guarded_fd) return cb_raw_sendmsg(fd, message, flags);
    if (!cb_guard_enter()) return -1;
    long sent = cb_raw_sendmsg(fd, message, flags);
    if (sent > 0) {
        const struct msghdr *header = (const struct msghdr *)message;
        long left = sent;
        for (size_t index = 0; index < header->msg_iovlen && left > 0; index++) {
            long take = (long)header->msg_iov[index].iov_len;
            if (take > left) take = left;
            cb_guard_advance((const unsigned char *)header->msg_iov[index].iov_base, take);
            left -= take;
        }
    }
    atomic_store(&cb_guard_busy, 0);
    return sent;
}

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

// One non-blocking send of a whole line or frame: a dying process must not wait for a peer
// that does not read (what does not fit is lost, and the peer sees end of file after it).
static void cb_send_once(int fd, const char *bytes, long count) {
    long sent;
    do {
        sent = cb_raw_send(fd, bytes, count, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
}

static void cb_write_all(int fd, const char *bytes, long count) {
    long written = 0;
    while (written < count) {
        long result = write(fd, bytes + written, (size_t)(count - written));
        if (result < 0 && errno == EINTR) continue;
        if (result <= 0) break;
        written += result;
    }
}

// "SIGNAME" and, when a recorded handler was running, " in the handler of method 'M' on channel 'C'".
static void cb_append_detail(cb_line *line, int number, const cb_running_handler *running) {
    cb_line_append_text(line, cb_signal_name(number));
    if (running == 0) return;
    cb_line_append_text(line, " in the handler of ");
    if (running->method != 0) {
        cb_line_append_text(line, "method '");
        cb_line_append(line, running->method, running->method_length);
        cb_line_append_text(line, "' on ");
    }
    cb_line_append_text(line, "channel '");
    cb_line_append(line, running->channel, running->channel_length);
    cb_line_append_text(line, "'");
}

// An isolated session's worker: GOODBYE sessionCrashed to the client when no frame is partly
// written and no send is under way (else the client gets end of file alone), and the report line
// on the hand-off socket, for the host.
static void cb_report_to_session(int number, const cb_running_handler *running) {
    if (cb_guarded_fd < 0) return;
    atomic_store(&cb_guard_crashed, 1);
    if (!atomic_load(&cb_guard_busy) && cb_guard_body_left == 0 && cb_guard_length_have == 0) {
        cb_line frame;
        frame.used = 7;
        cb_line_append_text(&frame, "the session's worker died by ");
        cb_append_detail(&frame, number, running);
        unsigned long length = (unsigned long)frame.used - 4;
        frame.bytes[0] = (char)(length & 0xff);
        frame.bytes[1] = (char)((length >> 8) & 0xff);
        frame.bytes[2] = 0;
        frame.bytes[3] = 0;
        frame.bytes[4] = 0x08;  // GOODBYE
        frame.bytes[5] = 8;     // sessionCrashed, u16 little-endian
        frame.bytes[6] = 0;
        cb_send_once(cb_guarded_fd, frame.bytes, frame.used);
    }
    // The client sees the end now, not once the process has died (the backtrace that follows
    // may take seconds); nothing more is sent on this socket.
    shutdown(cb_guarded_fd, SHUT_RDWR);
    if (cb_report_fd >= 0) {
        cb_line line;
        line.used = 0;
        cb_line_append_text(&line, "died by ");
        cb_append_detail(&line, number, running);
        line.bytes[line.used++] = '\n';
        cb_send_once(cb_report_fd, line.bytes, line.used);
    }
}

static void cb_report_fatal_signal(int number, siginfo_t *info, void *context) {
    const cb_running_handler *running = cb_running;
    long slot = 0;
    while (cb_fatal_signals[slot] != number) slot++;
    // The client and the host first: the handler below may take a while (Swift's backtracer).
    cb_report_to_session(number, running);
    // What was there before reports next (Swift's backtracer prints the crashed thread and
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
        cb_append_detail(&line, number, running);
        line.bytes[line.used++] = '\n';
        cb_write_all(2, line.bytes, line.used);
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

int cb_spawn(const char *path, char *const *arguments, char *const *environment, const int *sources,
             const int *targets, int count, int *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    // Copies above every target first, so that no dup2 overwrites a source a later one reads;
    // dup2 clears close-on-exec on the child's copy, and the parent's copies are closed below.
    int copies[16];
    int made = 0;
    if (count > 16) result = EINVAL;
    for (int index = 0; result == 0 && index < count; index++) {
        copies[index] = fcntl(sources[index], F_DUPFD_CLOEXEC, 64);
        if (copies[index] < 0) {
            result = errno;
            break;
        }
        made++;
        result = posix_spawn_file_actions_adddup2(&actions, copies[index], targets[index]);
    }
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigset_t none;
    sigemptyset(&none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &defaults);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) {
        result = posix_spawnattr_setflags(
            &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    }
    pid_t child = 0;
    if (result == 0) result = posix_spawn(&child, path, &actions, &attributes, arguments, environment);
    if (result == 0) *pid = (int)child;
    for (int index = 0; index < made; index++) close(copies[index]);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}

long cb_send_descriptor(int socket, int fd, const void *bytes, long count) {
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec vector = { (void *)bytes, (size_t)count };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    long sent;
    do {
        sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

long cb_receive_descriptor(int socket, int *fd, void *bytes, long count) {
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int) * 4)];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec vector = { bytes, (size_t)count };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    long received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (received < 0 && errno == EINTR);
    *fd = -1;
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != 0; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        long descriptors = (long)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (long index = 0; index < descriptors; index++) {
            int received_fd;
            memcpy(&received_fd, CMSG_DATA(header) + index * (long)sizeof(int), sizeof(int));
            if (*fd < 0) *fd = received_fd; else close(received_fd);
        }
    }
    return received;
}

int cb_pidfd_open(int pid) {
#if defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return (int)syscall(434, pid, 0);
#endif
}
