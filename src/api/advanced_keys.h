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

/*
 * The chunks of `<key>/@adv/<entity>/<zid>/<eid>/...` (s of len bytes): the zid read, the eid's
 * text (in s); false when s has no such part or the zid is not one.
 */
static inline bool zm_adv_key_chunks(const char *s, size_t len, z_id_t *zid, const char **eid, size_t *eid_len)
{
    size_t at = 0;
    while (at + 5 <= len && !(memcmp(s + at, "@adv/", 5) == 0 && (at == 0 || s[at - 1] == '/'))) {
        at++;
    }
    if (at + 5 > len) {
        return false;
    }
    const char *chunk[3];
    size_t clen[3];
    size_t i = at + 5;
    for (size_t c = 0; c < 3; c++) {
        if (i > len) {
            return false;
        }
        chunk[c] = s + i;
        while (i < len && s[i] != '/') {
            i++;
        }
        clen[c] = (size_t)(s + i - chunk[c]);
        if (clen[c] == 0) {
            return false;
        }
        i++;
    }
    *eid = chunk[2];
    *eid_len = clen[2];
    return zm_adv_zid_parse(chunk[1], clen[1], zid);
}

/*
 * A duration of Rust's time ranges, `<decimal>[u|ms|s|m|h|d|w]` (seconds without a unit), with a
 * sign before it, in NTP64 units (2^-32 s); false when it is not one or exceeds 2^31 s.
 */
static inline bool zm_adv_offset_parse(const char *s, size_t len, int64_t *ntp)
{
    bool neg = len > 0 && s[0] == '-';
    size_t i = neg ? 1u : 0u;
    uint64_t micros = 0; /* the number, in millionths */
    uint64_t scale = 1000000u;
    bool digits = false, dot = false;
    for (; i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && !dot)); i++) {
        if (s[i] == '.') {
            dot = true;
        } else if (!dot) {
            micros = micros * 10u + (uint64_t)(s[i] - '0') * 1000000u;
            digits = true;
        } else if (scale > 1u) {
            scale /= 10u;
            micros += (uint64_t)(s[i] - '0') * scale;
        }
        if (micros > ((uint64_t)1 << 40)) {
            return false;
        }
    }
    static const struct {
        const char *unit;
        uint32_t seconds; /* 0: microseconds; 1000: milliseconds (divided below) */
    } units[] = {{"", 1}, {"s", 1}, {"u", 0}, {"ms", 1000}, {"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 604800}};
    for (size_t u = 0; digits && u < sizeof(units) / sizeof(units[0]); u++) {
        if (strlen(units[u].unit) == len - i && memcmp(units[u].unit, s + i, len - i) == 0) {
            uint64_t us = units[u].seconds == 0      ? micros / 1000000u
                          : units[u].seconds == 1000 ? micros / 1000u
                                                     : micros * units[u].seconds; /* < 2^60 */
            uint64_t secs = us / 1000000u;
            if (secs >= ((uint64_t)1 << 31)) {
                return false;
            }
            int64_t v = (int64_t)((secs << 32) | (((us % 1000000u) << 32) / 1000000u));
            *ntp = neg ? -v : v;
            return true;
        }
    }
    return false;
}

/* A bound of a time range, `now(<offset>)` (empty: no bound), as an NTP64 time from now; false otherwise. */
static inline bool zm_adv_bound_parse(const char *s, size_t len, uint64_t now, bool *open, uint64_t *t)
{
    int64_t off = 0;
    *open = len == 0;
    if (*open) {
        return true;
    }
    if (len < 5 || memcmp(s, "now(", 4) != 0 || s[len - 1] != ')' ||
        (len > 5 && !zm_adv_offset_parse(s + 4, len - 5, &off))) {
        return false;
    }
    if (off < 0) {
        *t = (uint64_t)-off > now ? 0u : now - (uint64_t)-off;
    } else {
        *t = (uint64_t)off > UINT64_MAX - now ? UINT64_MAX : now + (uint64_t)off;
    }
    return true;
}

/*
 * `_time=[a..b]` of Rust's selectors (v of len bytes), each end `[`/`]` inclusive or exclusive and
 * a bound of zm_adv_bound_parse: the NTP64 times [*since, *until] it keeps. False for a range
 * zmote cannot read (fixed RFC 3339 times): it filters nothing, as one Rust cannot read does in
 * Rust's cache.
 */
static inline bool zm_adv_time_range(const char *v, size_t len, uint64_t now, uint64_t *since, uint64_t *until)
{
    size_t dots = 1;
    while (dots + 1 < len && !(v[dots] == '.' && v[dots + 1] == '.')) {
        dots++;
    }
    if (len < 4 || (v[0] != '[' && v[0] != ']') || (v[len - 1] != '[' && v[len - 1] != ']') || dots + 2 > len - 1) {
        return false;
    }
    bool open_start, open_end;
    uint64_t start = 0, end = UINT64_MAX;
    if (!zm_adv_bound_parse(v + 1, dots - 1, now, &open_start, &start) ||
        !zm_adv_bound_parse(v + dots + 2, len - dots - 3, now, &open_end, &end)) {
        return false;
    }
    *since = open_start || v[0] == '[' || start == UINT64_MAX ? (open_start ? 0u : start) : start + 1u;
    *until = open_end || v[len - 1] == ']' || end == 0 ? (open_end ? UINT64_MAX : end) : end - 1u;
    return true;
}

#endif /* ZM_API_ADVANCED_KEYS_H */
