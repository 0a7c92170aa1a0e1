/* A plain C implementation of the Standard message codec (Flutter's format), for the codec
 * baseline: decode bytes into a malloc'd value tree, encode the tree back into a growing buffer.
 * Bounds are checked on every read; strings are copied as bytes (no UTF-8 validation, as in
 * Flutter's C++ codec). Little-endian hosts only, like the rest of the package. */
#define _POSIX_C_SOURCE 200809L
#include "raw_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct value {
    uint8_t type;
    uint32_t count;
    union {
        int32_t i32;
        int64_t i64;
        double f64;
        unsigned char *bytes;  /* strings (5, 7), Uint8List and the other typed lists */
        struct value *items;   /* lists: count items; maps: 2 × count (key, value, ...) */
    } as;
};

struct input {
    const unsigned char *base;
    size_t offset, length;
};

static int element_width(uint8_t type) {
    switch (type) {
    case 8: return 1;
    case 9: case 14: return 4;
    case 10: case 11: return 8;
    default: return 0;
    }
}

static int read_size(struct input *in, uint32_t *size) {
    if (in->offset >= in->length) return -1;
    unsigned char first = in->base[in->offset++];
    if (first < 254) {
        *size = first;
    } else if (first == 254) {
        if (in->length - in->offset < 2) return -1;
        uint16_t v;
        memcpy(&v, in->base + in->offset, 2);
        in->offset += 2;
        *size = v;
    } else {
        if (in->length - in->offset < 4) return -1;
        memcpy(size, in->base + in->offset, 4);
        in->offset += 4;
    }
    return 0;
}

static int align_input(struct input *in, size_t alignment) {
    size_t pad = (alignment - in->offset % alignment) % alignment;
    if (in->length - in->offset < pad) return -1;
    in->offset += pad;
    return 0;
}

static void free_value(struct value *value);

static int decode_value(struct input *in, struct value *out, int depth) {
    if (depth > 1000 || in->offset >= in->length) return -1;
    memset(out, 0, sizeof *out);
    out->type = in->base[in->offset++];
    size_t left;
    switch (out->type) {
    case 0: case 1: case 2:
        return 0;
    case 3:
        if (in->length - in->offset < 4) return -1;
        memcpy(&out->as.i32, in->base + in->offset, 4);
        in->offset += 4;
        return 0;
    case 4:
        if (in->length - in->offset < 8) return -1;
        memcpy(&out->as.i64, in->base + in->offset, 8);
        in->offset += 8;
        return 0;
    case 6:
        if (align_input(in, 8) != 0 || in->length - in->offset < 8) return -1;
        memcpy(&out->as.f64, in->base + in->offset, 8);
        in->offset += 8;
        return 0;
    case 5: case 7: case 8: case 9: case 10: case 11: case 14: {
        if (read_size(in, &out->count) != 0) return -1;
        size_t width = out->type == 5 || out->type == 7 ? 1 : (size_t)element_width(out->type);
        if (width > 1 && align_input(in, width) != 0) return -1;
        left = in->length - in->offset;
        if (out->count > left / width) {
            out->count = 0;
            return -1;
        }
        size_t bytes = (size_t)out->count * width;
        out->as.bytes = malloc(bytes ? bytes : 1);
        if (!out->as.bytes) return -1;
        memcpy(out->as.bytes, in->base + in->offset, bytes);
        in->offset += bytes;
        return 0;
    }
    case 12: case 13: {
        if (read_size(in, &out->count) != 0) return -1;
        size_t slots = out->type == 13 ? 2 * (size_t)out->count : out->count;
        left = in->length - in->offset;
        /* Every element takes at least one byte: an absurd count fails before allocating. */
        if (slots > left) {
            out->count = 0;
            return -1;
        }
        /* Zeroed slots are nulls, so a tree that failed half-way can still be freed whole. */
        out->as.items = calloc(slots ? slots : 1, sizeof(struct value));
        if (!out->as.items) {
            out->count = 0;
            return -1;
        }
        for (size_t i = 0; i < slots; i++) {
            if (decode_value(in, &out->as.items[i], depth + 1) != 0) return -1;
        }
        return 0;
    }
    default:
        return -1;
    }
}

static void free_value(struct value *value) {
    switch (value->type) {
    case 5: case 7: case 8: case 9: case 10: case 11: case 14:
        free(value->as.bytes);
        break;
    case 12: case 13: {
        size_t slots = value->type == 13 ? 2 * (size_t)value->count : value->count;
        for (size_t i = 0; i < slots; i++) free_value(&value->as.items[i]);
        free(value->as.items);
        break;
    }
    default:
        break;
    }
}

struct output {
    unsigned char *bytes;
    size_t length, capacity;
};

static void reserve(struct output *out, size_t more) {
    if (out->length + more <= out->capacity) return;
    size_t capacity = out->capacity ? out->capacity : 64;
    while (capacity < out->length + more) capacity *= 2;
    out->bytes = realloc(out->bytes, capacity);
    if (!out->bytes) fail("realloc");
    out->capacity = capacity;
}

static void put(struct output *out, const void *bytes, size_t count) {
    reserve(out, count);
    memcpy(out->bytes + out->length, bytes, count);
    out->length += count;
}

static void put_byte(struct output *out, unsigned char byte) {
    reserve(out, 1);
    out->bytes[out->length++] = byte;
}

static void put_size(struct output *out, uint32_t size) {
    if (size < 254) {
        put_byte(out, (unsigned char)size);
    } else if (size <= 0xFFFF) {
        uint16_t v = (uint16_t)size;
        put_byte(out, 254);
        put(out, &v, 2);
    } else {
        put_byte(out, 255);
        put(out, &size, 4);
    }
}

static void put_alignment(struct output *out, size_t alignment) {
    size_t pad = (alignment - out->length % alignment) % alignment;
    reserve(out, pad);
    memset(out->bytes + out->length, 0, pad);
    out->length += pad;
}

static void encode_value(struct output *out, const struct value *value) {
    put_byte(out, value->type);
    switch (value->type) {
    case 3: put(out, &value->as.i32, 4); break;
    case 4: put(out, &value->as.i64, 8); break;
    case 6:
        put_alignment(out, 8);
        put(out, &value->as.f64, 8);
        break;
    case 5: case 7: case 8: case 9: case 10: case 11: case 14: {
        size_t width = value->type == 5 || value->type == 7 ? 1 : (size_t)element_width(value->type);
        put_size(out, value->count);
        if (width > 1) put_alignment(out, width);
        put(out, value->as.bytes, (size_t)value->count * width);
        break;
    }
    case 12: case 13: {
        put_size(out, value->count);
        size_t slots = value->type == 13 ? 2 * (size_t)value->count : value->count;
        for (size_t i = 0; i < slots; i++) encode_value(out, &value->as.items[i]);
        break;
    }
    default:
        break;
    }
}

/* One decode + encode; returns the encoded length and leaves the bytes in `*encoded`. */
static size_t round_trip(const unsigned char *bytes, size_t length, unsigned char **encoded) {
    struct input in = {bytes, 0, length};
    struct value root;
    if (decode_value(&in, &root, 0) != 0 || in.offset != length) {
        free_value(&root);
        fprintf(stderr, "channelbridge-raw-bench: the payload does not decode\n");
        exit(1);
    }
    struct output out = {NULL, 0, 0};
    encode_value(&out, &root);
    free_value(&root);
    *encoded = out.bytes;
    return out.length;
}

static unsigned char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) fail(path);
    size_t capacity = 1 << 16, used = 0;
    unsigned char *bytes = malloc(capacity);
    if (!bytes) fail("malloc");
    for (;;) {
        if (used == capacity) {
            capacity *= 2;
            bytes = realloc(bytes, capacity);
            if (!bytes) fail("realloc");
        }
        size_t got = fread(bytes + used, 1, capacity - used, file);
        used += got;
        if (got == 0) break;
    }
    fclose(file);
    *length = used;
    return bytes;
}

int run_codec(const struct bench_options *options) {
    if (!options->payload_path) {
        fprintf(stderr, "channelbridge-raw-bench codec: --payload FILE is required\n");
        return 64;
    }
    size_t length;
    unsigned char *payload = read_file(options->payload_path, &length);
    unsigned char *encoded;
    size_t encoded_length = round_trip(payload, length, &encoded);
    if (encoded_length != length || memcmp(encoded, payload, length) != 0) {
        fprintf(stderr, "channelbridge-raw-bench: re-encoding the payload changed its bytes\n");
        free(encoded);
        free(payload);
        return 1;
    }
    free(encoded);
    /* Microseconds per decode + encode, best of three timed batches. */
    double best = 1e300;
    size_t sink = 0;
    for (int batch = 0; batch < 3; batch++) {
        double begin = now_seconds();
        for (long i = 0; i < options->count; i++) {
            sink += round_trip(payload, length, &encoded);
            sink += encoded[length / 2];
            free(encoded);
        }
        double micros = (now_seconds() - begin) * 1e6 / (double)options->count;
        if (micros < best) best = micros;
    }
    printf("{\"encdec_us\": %.4f, \"bytes\": %zu, \"checksum\": %zu}\n", best, length, sink % 1000);
    free(payload);
    return 0;
}
