/* channelbridge-raw-bench: the raw baselines `channelbridge-bench` measures ChannelBridge against.
 * Each subcommand prints one JSON object on stdout. */
#define _POSIX_C_SOURCE 200809L
#include "raw_bench.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: channelbridge-raw-bench <command> [options]\n"
    "\n"
    "Commands (each forks a server process and talks to it over a Unix socket, blocking I/O;\n"
    "frames are a 4-byte little-endian length and the payload):\n"
    "  rtt       64-byte ping-pong            --count N --warmup N\n"
    "  pipeline  64-byte calls, many in flight --count N --warmup N --depth D --batched|--one-write\n"
    "  bulk      round trips of one frame     --size BYTES --count N --warmup N\n"
    "  stream    one-way 64-byte frames       --count N --batched|--one-write\n"
    "  codec     Standard codec decode+encode --payload FILE --count N (iterations per batch)\n"
    "  durable   one durable file replace     --size BYTES --count N --warmup N [--append] [--stepped]\n"
    "            (write temp, fsync, rename, fsync dir in $TMPDIR; --append: append + fdatasync;\n"
    "            --stepped: print 'ready', then one write per line read from stdin, printing its\n"
    "            microseconds, until end of input)\n";

static long parse_long(const char *text, const char *option) {
    char *end;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 0) {
        fprintf(stderr, "channelbridge-raw-bench: %s takes a whole number, not '%s'\n", option, text);
        exit(64);
    }
    return value;
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 64 : 0;
    }
    signal(SIGPIPE, SIG_IGN);
    struct bench_options options = {.count = 100000, .warmup = 10000, .depth = 256, .size = 1 << 20,
                                    .batched = 1, .append = 0, .stepped = 0,
                                    .payload_path = NULL};
    for (int i = 2; i < argc; i++) {
        const char *name = argv[i];
        if (strcmp(name, "--batched") == 0) { options.batched = 1; continue; }
        if (strcmp(name, "--one-write") == 0) { options.batched = 0; continue; }
        if (strcmp(name, "--append") == 0) { options.append = 1; continue; }
        if (strcmp(name, "--stepped") == 0) { options.stepped = 1; continue; }
        if (i + 1 >= argc) {
            fprintf(stderr, "channelbridge-raw-bench: %s needs a value\n", name);
            return 64;
        }
        const char *value = argv[++i];
        if (strcmp(name, "--count") == 0) options.count = parse_long(value, name);
        else if (strcmp(name, "--warmup") == 0) options.warmup = parse_long(value, name);
        else if (strcmp(name, "--depth") == 0) options.depth = parse_long(value, name);
        else if (strcmp(name, "--size") == 0) options.size = parse_long(value, name);
        else if (strcmp(name, "--payload") == 0) options.payload_path = value;
        else {
            fprintf(stderr, "channelbridge-raw-bench: unknown option %s\n", name);
            return 64;
        }
    }
    if (options.count < 1 || options.depth < 1 || options.size < 1) {
        fprintf(stderr, "channelbridge-raw-bench: --count, --depth and --size must be at least 1\n");
        return 64;
    }
    const char *command = argv[1];
    int status;
    if (strcmp(command, "rtt") == 0) status = run_rtt(&options);
    else if (strcmp(command, "pipeline") == 0) status = run_pipeline(&options);
    else if (strcmp(command, "bulk") == 0) status = run_bulk(&options);
    else if (strcmp(command, "stream") == 0) status = run_stream(&options);
    else if (strcmp(command, "codec") == 0) status = run_codec(&options);
    else if (strcmp(command, "durable") == 0) status = run_durable(&options);
    else {
        fprintf(stderr, "channelbridge-raw-bench: unknown command '%s'\n\n%s", command, usage);
        return 64;
    }
    fflush(stdout);
    return status == 0 ? 0 : (status == 64 ? 64 : 1);
}
