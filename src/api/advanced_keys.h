/*
 * The key chunks zenoh-ext's advanced publishers and subscribers share (zmote/api/advanced.h):
 * a zid as Rust prints it (hex, most significant digit first, no leading zero: Rust refuses
 * one when it parses), and the reading of `.../@adv/<entity>/<zid>/<eid>/...` keys.
 */
#ifndef ZM_API_ADVANCED_KEYS_H
#define ZM_API_ADVANCED_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "zmote.h"

/** Longest zid chunk: 32 hex digits. */
#define ZM_ADV_ZID_CHUNK_MAX 32

/** Writes zid as Rust's key chunk into out (ZM_ADV_ZID_CHUNK_MAX bytes, no NUL); returns its length. */
static inline size_t zm_adv_zid_chunk(const z_id_t *zid, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (size_t i = 0; i < 32; i++) {
        uint8_t b = zid->id[15 - i / 2];
        unsigned digit = (i % 2 == 0) ? (unsigned)(b >> 4) : (unsigned)(b & 0x0f);
        if (digit != 0 || n > 0 || i == 31) {
            out[n++] = hex[digit];
        }
    }
    return n;
}

/** Reads a zid chunk of 1..32 hex digits (the last digit the least significant). */
static inline bool zm_adv_zid_parse(const char *s, size_t len, z_id_t *zid)
{
    if (len == 0 || len > 32) {
        return false;
    }
    memset(zid, 0, sizeof(*zid));
    for (size_t i = 0; i < len; i++) {
        char c = s[len - 1 - i];
        unsigned v = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (v > 15) {
            return false;
        }
        zid->id[i / 2] = (uint8_t)(zid->id[i / 2] | (v << (4 * (i % 2))));
    }
    return true;
}

#endif /* ZM_API_ADVANCED_KEYS_H */
