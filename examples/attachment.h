/*
 * Attachments of string pairs for the attachment examples, in the layout of Zenoh's serialization
 * format (what zenoh-pico's and Rust's serializers write for a list of string pairs): the number
 * of pairs, then each key and value as its length and its bytes, every length a LEB128 varint.
 * Written and read with the raw payload API only, as static inline helpers.
 */
#ifndef ZM_EXAMPLES_ATTACHMENT_H
#define ZM_EXAMPLES_ATTACHMENT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zenoh-pico.h"

static inline z_result_t attachment_write_len(z_loaned_bytes_writer_t *w, size_t n)
{
    uint8_t buf[10];
    size_t len = 0;
    do {
        buf[len] = (uint8_t)(n & 0x7f);
        n >>= 7;
        buf[len] |= n != 0 ? 0x80 : 0;
        len++;
    } while (n != 0);
    return z_bytes_writer_write_all(w, buf, len);
}

static inline z_result_t attachment_write_str(z_loaned_bytes_writer_t *w, const char *s)
{
    size_t len = strlen(s);
    z_result_t r = attachment_write_len(w, len);
    return r == Z_OK ? z_bytes_writer_write_all(w, (const uint8_t *)s, len) : r;
}

/** Returns owned in *out an attachment of the one pair (key, value); *out is null on failure. */
static inline z_result_t attachment_of_pair(z_owned_bytes_t *out, const char *key, const char *value)
{
    z_owned_bytes_writer_t w;
    z_result_t r = z_bytes_writer_empty(&w);
    if (r == Z_OK) {
        r = attachment_write_len(z_loan_mut(w), 1);
    }
    if (r == Z_OK) {
        r = attachment_write_str(z_loan_mut(w), key);
    }
    if (r == Z_OK) {
        r = attachment_write_str(z_loan_mut(w), value);
    }
    z_bytes_writer_finish(z_move(w), out);
    if (r != Z_OK) {
        z_drop(z_move(*out));
    }
    return r;
}

/* Reads a LEB128 length no longer than what is left; false when there is none. */
static inline bool attachment_read_len(z_bytes_reader_t *r, size_t *n)
{
    *n = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (z_bytes_reader_read(r, &b, 1) != 1) {
            return false;
        }
        *n |= (size_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            return true;
        }
    }
    return false;
}

/* Reads a string into a new NUL-terminated buffer (free it); NULL when the payload is short. */
static inline char *attachment_read_str(z_bytes_reader_t *r, size_t *len)
{
    if (!attachment_read_len(r, len) || *len > z_bytes_reader_remaining(r)) {
        return NULL;
    }
    char *s = malloc(*len + 1);
    if (s != NULL) {
        z_bytes_reader_read(r, (uint8_t *)s, *len);
        s[*len] = '\0';
    }
    return s;
}

/** Prints the pairs of an attachment as zenoh-pico's examples do; nothing when it has none. */
static inline void attachment_print(const z_loaned_bytes_t *attachment)
{
    z_bytes_reader_t r = z_bytes_get_reader(attachment);
    size_t n;
    if (!attachment_read_len(&r, &n) || n == 0) {
        return;
    }
    printf("    with attachment:\n");
    for (size_t i = 0; i < n; i++) {
        size_t klen, vlen;
        char *key = attachment_read_str(&r, &klen);
        char *value = key != NULL ? attachment_read_str(&r, &vlen) : NULL;
        if (value != NULL) {
            printf("     %zu: %.*s, %.*s\n", i, (int)klen, key, (int)vlen, value);
        }
        free(key);
        free(value);
        if (value == NULL) {
            return;
        }
    }
}

#endif /* ZM_EXAMPLES_ATTACHMENT_H */
