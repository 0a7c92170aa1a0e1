/* Process and socket plumbing shared by the socket baselines. */
#define _POSIX_C_SOURCE 200809L
#include "raw_bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void fail(const char *what) {
    fprintf(stderr, "channelbridge-raw-bench: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double percentile(double *values, long count, double fraction) {
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    long index = (long)(fraction * (double)(count - 1) + 0.5);
    if (index < 0) index = 0;
    if (index >= count) index = count - 1;
    return values[index];
}

int read_fully(int fd, void *buffer, size_t count) {
    char *at = buffer;
    while (count > 0) {
        ssize_t got = read(fd, at, count);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        at += got;
        count -= (size_t)got;
    }
    return 0;
}

int write_fully(int fd, const void *buffer, size_t count) {
    const char *at = buffer;
    while (count > 0) {
        ssize_t put = write(fd, at, count);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return -1;
        at += put;
        count -= (size_t)put;
    }
    return 0;
}

int start_server(serve_fn serve, const struct bench_options *options, struct server_process *out) {
    char directory[] = "/tmp/channelbridge-raw-XXXXXX";
    if (!mkdtemp(directory)) fail("mkdtemp");
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    snprintf(address.sun_path, sizeof address.sun_path, "%s/s", directory);

    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (listener < 0) fail("socket");
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0) fail("bind");
    if (listen(listener, 1) != 0) fail("listen");

    pid_t pid = fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
        int fd;
        do { fd = accept(listener, NULL, NULL); } while (fd < 0 && errno == EINTR);
        if (fd < 0) fail("accept");
        close(listener);
        serve(fd, options);
        close(fd);
        _exit(0);
    }
    close(listener);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) fail("socket");
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) fail("connect");
    unlink(address.sun_path);
    rmdir(directory);
    out->client_fd = fd;
    out->pid = (int)pid;
    return 0;
}

int finish_server(struct server_process *server) {
    close(server->client_fd);
    int status = 0;
    while (waitpid((pid_t)server->pid, &status, 0) < 0) {
        if (errno != EINTR) fail("waitpid");
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "channelbridge-raw-bench: the server process failed\n");
        return -1;
    }
    return 0;
}
