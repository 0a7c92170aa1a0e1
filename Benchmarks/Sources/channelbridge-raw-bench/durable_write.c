/* The durable-write floor: what one acknowledged write must cost on this disk at least, done the
 * way Protocol/store.md writes preferences.json (write a temporary file, fsync it, rename it over
 * the target, fsync the directory), with nothing else: no lock, no parsing, no encoding.
 * `--append` measures the other classic shape instead: append one record to an open file and
 * fdatasync it (a journal's commit). `--stepped` lets a benchmark pair each write with one of
 * its own: one write per line read from stdin, its time in microseconds printed after it. */
#define _POSIX_C_SOURCE 200809L
#include "raw_bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void replace_durably(const char *directory, const char *target, const char *temporary,
                            const unsigned char *bytes, size_t size) {
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("open temporary file");
    if (write_fully(fd, bytes, size) != 0) fail("write");
    if (fsync(fd) != 0) fail("fsync");
    if (close(fd) != 0) fail("close");
    if (rename(temporary, target) != 0) fail("rename");
    int dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) fail("open directory");
    if (fsync(dir) != 0) fail("fsync directory");
    close(dir);
}

static void remove_files(const char *directory, const char *target, const char *temporary) {
    unlink(target);
    unlink(temporary);
    rmdir(directory);
}

static int run_stepped(const char *directory, const char *target, const char *temporary,
                       unsigned char *bytes, size_t size) {
    printf("ready\n");
    fflush(stdout);
    char line[64];
    for (long i = 0; fgets(line, sizeof line, stdin); i++) {
        bytes[0] = (unsigned char)i;
        double start = now_seconds();
        replace_durably(directory, target, temporary, bytes, size);
        printf("%.3f\n", (now_seconds() - start) * 1e6);
        fflush(stdout);
    }
    remove_files(directory, target, temporary);
    free(bytes);
    return 0;
}

int run_durable(const struct bench_options *options) {
    /* Beside the store's default place, on the same file system as the benchmark's data. */
    const char *base = getenv("TMPDIR");
    char directory[4096], target[4200], temporary[4200];
    snprintf(directory, sizeof directory, "%s/channelbridge-raw-durable-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(directory)) fail("mkdtemp");
    snprintf(target, sizeof target, "%s/preferences.json", directory);
    snprintf(temporary, sizeof temporary, "%s/.preferences.json.tmp", directory);

    size_t size = (size_t)options->size;
    unsigned char *bytes = malloc(size);
    if (!bytes) fail("malloc");
    for (size_t i = 0; i < size; i++) bytes[i] = (unsigned char)('a' + i % 26);

    if (options->stepped) return run_stepped(directory, target, temporary, bytes, size);

    int journal = -1;
    if (options->append) {
        journal = open(target, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (journal < 0) fail("open journal");
    }
    long total = options->warmup + options->count;
    double *samples = malloc(sizeof *samples * (size_t)options->count);
    if (!samples) fail("malloc");
    double begin = 0;
    for (long i = 0; i < total; i++) {
        if (i == options->warmup) begin = now_seconds();
        bytes[0] = (unsigned char)i;
        double start = now_seconds();
        if (options->append) {
            if (write_fully(journal, bytes, size) != 0) fail("write");
            if (fdatasync(journal) != 0) fail("fdatasync");
        } else {
            replace_durably(directory, target, temporary, bytes, size);
        }
        if (i >= options->warmup) samples[i - options->warmup] = (now_seconds() - start) * 1e6;
    }
    double elapsed = now_seconds() - begin;
    if (journal >= 0) close(journal);
    remove_files(directory, target, temporary);
    double p99 = percentile(samples, options->count, 0.99);
    double p50 = percentile(samples, options->count, 0.50);
    printf("{\"p50_us\": %.4f, \"p99_us\": %.4f, \"writes_per_s\": %.1f}\n", p50, p99,
           (double)options->count / elapsed);
    free(samples);
    free(bytes);
    return 0;
}
