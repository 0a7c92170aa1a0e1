/* The socket baselines: framed ping-pong, pipelined calls, bulk round trips and a one-way stream,
 * each between this process and a forked server over a Unix stream socket, blocking read/write. */
#define _POSIX_C_SOURCE 200809L
#include "raw_bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_BUFFER (256 * 1024)

static void put_u32(unsigned char *at, uint32_t value) {
    at[0] = (unsigned char)value;
    at[1] = (unsigned char)(value >> 8);
    at[2] = (unsigned char)(value >> 16);
    at[3] = (unsigned char)(value >> 24);
}

static uint32_t get_u32(const unsigned char *at) {
    return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

/* Fills `count` small frames: header 60, then a recognisable payload. */
static void fill_small_frames(unsigned char *at, long count) {
    for (long i = 0; i < count; i++) {
        unsigned char *frame = at + i * SMALL_FRAME;
        put_u32(frame, SMALL_FRAME - FRAME_HEADER);
        for (int j = FRAME_HEADER; j < SMALL_FRAME; j++) frame[j] = (unsigned char)(i + j);
    }
}

/* Buffered reading of small frames: bytes read but not yet taken stay for the next call. */
struct frame_reader {
    unsigned char *buffer;
    size_t start, end;
};

static void reader_init(struct frame_reader *reader) {
    reader->buffer = malloc(READ_BUFFER);
    if (!reader->buffer) fail("malloc");
    reader->start = reader->end = 0;
}

/* Reads once (blocking); returns the number of bytes read, 0 at end of file. */
static long reader_fill(struct frame_reader *reader, int fd) {
    if (reader->start > 0) {
        memmove(reader->buffer, reader->buffer + reader->start, reader->end - reader->start);
        reader->end -= reader->start;
        reader->start = 0;
    }
    for (;;) {
        ssize_t got = read(fd, reader->buffer + reader->end, READ_BUFFER - reader->end);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail("read");
        reader->end += (size_t)got;
        return (long)got;
    }
}

/* Takes the complete small frames now buffered; returns how many, and where they start. */
static long reader_take(struct frame_reader *reader, unsigned char **first) {
    long count = (long)((reader->end - reader->start) / SMALL_FRAME);
    *first = reader->buffer + reader->start;
    for (long i = 0; i < count; i++) {
        if (get_u32(*first + i * SMALL_FRAME) != SMALL_FRAME - FRAME_HEADER) {
            fprintf(stderr, "channelbridge-raw-bench: bad frame header\n");
            exit(1);
        }
    }
    reader->start += (size_t)count * SMALL_FRAME;
    return count;
}

/* Server of rtt and pipeline: echoes each frame, all replies to one read in one write when
 * batched, else one write per frame. */
static void serve_small_echo(int fd, const struct bench_options *options) {
    struct frame_reader reader;
    reader_init(&reader);
    while (reader_fill(&reader, fd) > 0) {
        unsigned char *frames;
        long count = reader_take(&reader, &frames);
        if (count == 0) continue;
        if (options->batched) {
            if (write_fully(fd, frames, (size_t)count * SMALL_FRAME) != 0) return;
        } else {
            for (long i = 0; i < count; i++) {
                if (write_fully(fd, frames + i * SMALL_FRAME, SMALL_FRAME) != 0) return;
            }
        }
    }
    free(reader.buffer);
}

int run_rtt(const struct bench_options *options) {
    struct server_process server;
    start_server(serve_small_echo, options, &server);
    struct frame_reader reader;
    reader_init(&reader);
    unsigned char request[SMALL_FRAME];
    fill_small_frames(request, 1);
    double *samples = malloc(sizeof(double) * (size_t)options->count);
    if (!samples) fail("malloc");
    double begin = 0;
    for (long i = -options->warmup; i < options->count; i++) {
        if (i == 0) begin = now_seconds();
        double start = now_seconds();
        if (write_fully(server.client_fd, request, SMALL_FRAME) != 0) fail("write");
        unsigned char *reply;
        while (reader_take(&reader, &reply) == 0) {
            if (reader_fill(&reader, server.client_fd) == 0) fail("server closed");
        }
        if (i >= 0) samples[i] = (now_seconds() - start) * 1e6;
    }
    double elapsed = now_seconds() - begin;
    double p50 = percentile(samples, options->count, 0.50);
    double p99 = percentile(samples, options->count, 0.99);
    printf("{\"p50_us\": %.4f, \"p99_us\": %.4f, \"calls_per_s\": %.1f}\n", p50, p99,
           (double)options->count / elapsed);
    free(samples);
    free(reader.buffer);
    return finish_server(&server);
}

/* Sends `count` request frames from `frames`: one write, or one write per frame. */
static void send_requests(int fd, const unsigned char *frames, long count, int batched) {
    if (batched) {
        if (write_fully(fd, frames, (size_t)count * SMALL_FRAME) != 0) fail("write");
    } else {
        for (long i = 0; i < count; i++) {
            if (write_fully(fd, frames + i * SMALL_FRAME, SMALL_FRAME) != 0) fail("write");
        }
    }
}

/* `total` calls with up to `depth` in flight; each reply read lets one more request go. */
static void pipeline_pass(int fd, struct frame_reader *reader, const unsigned char *frames, long total,
                          long depth, int batched) {
    long sent = total < depth ? total : depth;
    long received = 0;
    send_requests(fd, frames, sent, batched);
    while (received < total) {
        if (reader_fill(reader, fd) == 0) fail("server closed");
        unsigned char *replies;
        long count = reader_take(reader, &replies);
        received += count;
        long more = total - sent < count ? total - sent : count;
        if (more > 0) {
            send_requests(fd, frames, more, batched);
            sent += more;
        }
    }
}

int run_pipeline(const struct bench_options *options) {
    struct server_process server;
    start_server(serve_small_echo, options, &server);
    struct frame_reader reader;
    reader_init(&reader);
    unsigned char *frames = malloc((size_t)options->depth * SMALL_FRAME);
    if (!frames) fail("malloc");
    fill_small_frames(frames, options->depth);
    if (options->warmup > 0) {
        pipeline_pass(server.client_fd, &reader, frames, options->warmup, options->depth, options->batched);
    }
    double begin = now_seconds();
    pipeline_pass(server.client_fd, &reader, frames, options->count, options->depth, options->batched);
    double elapsed = now_seconds() - begin;
    printf("{\"calls_per_s\": %.1f}\n", (double)options->count / elapsed);
    free(frames);
    free(reader.buffer);
    return finish_server(&server);
}

/* Bulk server: reads a whole frame, then writes it back. */
static void serve_bulk_echo(int fd, const struct bench_options *options) {
    unsigned char *payload = malloc((size_t)options->size);
    if (!payload) fail("malloc");
    unsigned char header[FRAME_HEADER];
    while (read_fully(fd, header, FRAME_HEADER) == 0) {
        uint32_t length = get_u32(header);
        if ((long)length != options->size) {
            fprintf(stderr, "channelbridge-raw-bench: unexpected bulk length %u\n", length);
            exit(1);
        }
        if (read_fully(fd, payload, length) != 0) break;
        if (write_fully(fd, header, FRAME_HEADER) != 0 || write_fully(fd, payload, length) != 0) break;
    }
    free(payload);
}

int run_bulk(const struct bench_options *options) {
    struct server_process server;
    start_server(serve_bulk_echo, options, &server);
    size_t size = (size_t)options->size;
    unsigned char *payload = malloc(size), *reply = malloc(size);
    if (!payload || !reply) fail("malloc");
    for (size_t i = 0; i < size; i++) payload[i] = (unsigned char)(i * 31 + 7);
    unsigned char header[FRAME_HEADER];
    double begin = 0;
    for (long round = -options->warmup; round < options->count; round++) {
        if (round == 0) begin = now_seconds();
        put_u32(header, (uint32_t)size);
        if (write_fully(server.client_fd, header, FRAME_HEADER) != 0) fail("write");
        if (write_fully(server.client_fd, payload, size) != 0) fail("write");
        if (read_fully(server.client_fd, header, FRAME_HEADER) != 0) fail("read");
        if (get_u32(header) != (uint32_t)size) fail("bulk reply length");
        if (read_fully(server.client_fd, reply, size) != 0) fail("read");
        if (reply[0] != payload[0] || reply[size - 1] != payload[size - 1]) fail("bulk reply content");
    }
    double elapsed = now_seconds() - begin;
    /* Payload bytes carried per second, both directions counted. */
    printf("{\"gb_per_s\": %.4f}\n", 2.0 * (double)size * (double)options->count / elapsed / 1e9);
    free(payload);
    free(reply);
    return finish_server(&server);
}

/* Stream server: waits for the client's go byte, then writes `count` small frames. */
static void serve_stream(int fd, const struct bench_options *options) {
    unsigned char go;
    if (read_fully(fd, &go, 1) != 0) return;
    long per_write = options->batched ? 256 : 1;
    unsigned char *frames = malloc((size_t)per_write * SMALL_FRAME);
    if (!frames) fail("malloc");
    fill_small_frames(frames, per_write);
    for (long sent = 0; sent < options->count;) {
        long now = options->count - sent < per_write ? options->count - sent : per_write;
        if (write_fully(fd, frames, (size_t)now * SMALL_FRAME) != 0) break;
        sent += now;
    }
    free(frames);
}

int run_stream(const struct bench_options *options) {
    struct server_process server;
    start_server(serve_stream, options, &server);
    struct frame_reader reader;
    reader_init(&reader);
    unsigned char go = 1;
    double begin = now_seconds();
    if (write_fully(server.client_fd, &go, 1) != 0) fail("write");
    long received = 0;
    while (received < options->count) {
        if (reader_fill(&reader, server.client_fd) == 0) fail("server closed early");
        unsigned char *frames;
        received += reader_take(&reader, &frames);
    }
    double elapsed = now_seconds() - begin;
    printf("{\"events_per_s\": %.1f}\n", (double)options->count / elapsed);
    free(reader.buffer);
    return finish_server(&server);
}
