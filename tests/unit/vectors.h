/*
 * Loads golden vectors for the unit tests: rust-wire.txt (`NAME: [LEN] hex`, the Rust 1.10.2
 * codec's own output) looked up by name, and hex text turned into bytes.
 */
#ifndef ZM_TEST_VECTORS_H
#define ZM_TEST_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses "aa bb cc" (spaces optional) into out; returns the byte count, or -1 on bad hex. */
static inline long vec_hex(const char *s, unsigned char *out, size_t cap)
{
    size_t n = 0;
    while (*s) {
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
            s++;
            continue;
        }
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1 || n >= cap) {
            return -1;
        }
        out[n++] = (unsigned char)v;
        s += 2;
    }
    return (long)n;
}

/* Finds the vector named exactly name in rust-wire.txt; returns its length or -1. */
static inline long vec_get(const char *name, unsigned char *out, size_t cap)
{
    FILE *f = fopen(ZM_VECTORS_DIR "/rust-wire.txt", "r");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", ZM_VECTORS_DIR "/rust-wire.txt");
        return -1;
    }
    char line[4096];
    long n = -1;
    size_t nl = strlen(name);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, name, nl) == 0 && strncmp(line + nl, ": [", 3) == 0) {
            const char *hex = strchr(line + nl, ']');
            n = hex ? vec_hex(hex + 1, out, cap) : -1;
            break;
        }
    }
    fclose(f);
    if (n < 0) {
        fprintf(stderr, "vector not found: %s\n", name);
    }
    return n;
}

#endif /* ZM_TEST_VECTORS_H */
