/* Raw C baselines for `channelbridge-bench`: what plain blocking sockets and a plain C codec do on this
 * machine, measured in the same run as ChannelBridge itself. Plain C11 + POSIX. */
#ifndef CHANNELBRIDGE_RAW_BENCH_H
#define CHANNELBRIDGE_RAW_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Every socket baseline speaks the same framing: a 4-byte little-endian length, then that many
 * payload bytes. A "64-byte frame" is 4 + 60 bytes. */
#define FRAME_HEADER 4
#define SMALL_FRAME 64

/* Options shared by the socket subcommands. */
struct bench_options {
    long count;        /* round trips, calls or frames measured */
    long warmup;       /* round trips or calls before measuring */
    long depth;        /* calls in flight (pipeline) */
    long size;         /* payload bytes (bulk) */
    int batched;       /* 1: many frames per write; 0: one write per frame */
    int append;        /* durable: append + fdatasync instead of replacing the file */
    int stepped;       /* durable: one write per line read from stdin, its time printed */
    const char *payload_path; /* codec: the encoded payload */
};

/* A connected pair: `client_fd` in this process, the server in a forked child that runs `serve`
 * on its end of a Unix socket bound at a temporary path, then exits. */
struct server_process {
    int client_fd;
    int pid;
};
typedef void (*serve_fn)(int fd, const struct bench_options *options);
int start_server(serve_fn serve, const struct bench_options *options, struct server_process *out);
int finish_server(struct server_process *server);

/* Blocking I/O with EINTR retried; both return 0 on success, -1 on error or early end of file. */
int read_fully(int fd, void *buffer, size_t count);
int write_fully(int fd, const void *buffer, size_t count);

double now_seconds(void);
void fail(const char *what) __attribute__((noreturn));
double percentile(double *values, long count, double fraction); /* sorts `values` */

int run_rtt(const struct bench_options *options);
int run_pipeline(const struct bench_options *options);
int run_bulk(const struct bench_options *options);
int run_stream(const struct bench_options *options);
int run_codec(const struct bench_options *options);
int run_durable(const struct bench_options *options);

#endif
