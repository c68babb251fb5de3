/*
 * The two buffer types that carry the codec: a bounded writer {data, len, cap} and a reader over
 * borrowed bytes {start, ptr, end}. Every read is bounds-checked and fails without moving; every
 * write either fits whole or fails with ZM_E_NO_SPACE, leaving what was written before intact.
 * zints follow the Zenoh rule (spec 1.1): LEB128 with at most 9 bytes, the 9th carrying 8 bits.
 * Hot helpers are inline: they sit on the per-sample path. They are C99 inline definitions with
 * one external copy in bytes.c, so a build for size calls that copy where it does not inline
 * rather than keeping a private copy in every file that uses them.
 */
#ifndef ZM_UTIL_BYTES_H
#define ZM_UTIL_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/common.h"

/** A borrowed view of bytes; never owns them. */
typedef struct {
    const uint8_t *ptr;
    size_t len;
} zm_slice_t;

/** A reader over borrowed bytes; start stays put so errors can name a byte offset. */
typedef struct {
    const uint8_t *start;
    const uint8_t *ptr;
    const uint8_t *end;
} zm_reader_t;

/** A bounded writer into a caller's buffer. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
} zm_writer_t;

#define ZM_ZINT_MAX_LEN 9u

/* Restores the writer to mark and returns when e fails: encoders write all or nothing. */
#define ZM_ENC_TRY(w, mark, e)      \
    do {                            \
        z_result_t enc_r_ = (e);    \
        if (enc_r_ != Z_OK) {       \
            (w)->len = (mark);      \
            return enc_r_;          \
        }                           \
    } while (0)

/** True if n fits a u32 length field (always, where size_t is 32 bits). */
#if SIZE_MAX > UINT32_MAX
inline bool zm_fits_u32(size_t n) { return n <= UINT32_MAX; }
#else
inline bool zm_fits_u32(size_t n) { return (void)n, true; }
#endif

inline zm_slice_t zm_slice(const void *ptr, size_t len)
{
    zm_slice_t s = {(const uint8_t *)ptr, len};
    return s;
}

inline bool zm_slice_eq(zm_slice_t a, zm_slice_t b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* ---- reader ---------------------------------------------------------------------------------- */

inline void zm_reader_init(zm_reader_t *r, const uint8_t *buf, size_t len)
{
    r->start = buf;
    r->ptr = buf;
    r->end = len > 0 ? buf + len : buf; /* NULL + 0 is undefined */
}

inline size_t zm_reader_left(const zm_reader_t *r) { return (size_t)(r->end - r->ptr); }
inline size_t zm_reader_offset(const zm_reader_t *r) { return (size_t)(r->ptr - r->start); }

ZM_NODISCARD inline z_result_t zm_read_u8(zm_reader_t *r, uint8_t *out)
{
    if (ZM_UNLIKELY(r->ptr >= r->end)) {
        return ZM_E_TRUNCATED;
    }
    *out = *r->ptr++;
    return Z_OK;
}

ZM_NODISCARD inline z_result_t zm_peek_u8(const zm_reader_t *r, uint8_t *out)
{
    if (r->ptr >= r->end) {
        return ZM_E_TRUNCATED;
    }
    *out = *r->ptr;
    return Z_OK;
}

ZM_NODISCARD inline z_result_t zm_read_u16le(zm_reader_t *r, uint16_t *out)
{
    if (zm_reader_left(r) < 2) {
        return ZM_E_TRUNCATED;
    }
    *out = (uint16_t)(r->ptr[0] | (r->ptr[1] << 8));
    r->ptr += 2;
    return Z_OK;
}

/** Reads a zint of any size (z64); does not move on failure. */
ZM_NODISCARD z_result_t zm_read_zint_slow(zm_reader_t *r, uint64_t *out);

ZM_NODISCARD inline z_result_t zm_read_zint(zm_reader_t *r, uint64_t *out)
{
    if (ZM_LIKELY(r->ptr < r->end && *r->ptr < 0x80)) {
        *out = *r->ptr++;
        return Z_OK;
    }
    return zm_read_zint_slow(r, out);
}

/** Reads a zint that must not exceed max (the zN bound); ZM_E_ZINT_OVERFLOW, unmoved, if it does. */
ZM_NODISCARD inline z_result_t zm_read_zint_max(zm_reader_t *r, uint64_t max, uint64_t *out)
{
    const uint8_t *mark = r->ptr;
    ZM_TRY(zm_read_zint(r, out));
    if (ZM_UNLIKELY(*out > max)) {
        r->ptr = mark;
        return ZM_E_ZINT_OVERFLOW;
    }
    return Z_OK;
}

ZM_NODISCARD inline z_result_t zm_read_z16(zm_reader_t *r, uint16_t *out)
{
    uint64_t v;
    ZM_TRY(zm_read_zint_max(r, UINT16_MAX, &v));
    *out = (uint16_t)v;
    return Z_OK;
}

ZM_NODISCARD inline z_result_t zm_read_z32(zm_reader_t *r, uint32_t *out)
{
    uint64_t v;
    ZM_TRY(zm_read_zint_max(r, UINT32_MAX, &v));
    *out = (uint32_t)v;
    return Z_OK;
}

/** Borrows the next n bytes. */
ZM_NODISCARD inline z_result_t zm_read_bytes(zm_reader_t *r, size_t n, zm_slice_t *out)
{
    if (ZM_UNLIKELY(zm_reader_left(r) < n)) {
        return ZM_E_TRUNCATED;
    }
    out->ptr = r->ptr;
    out->len = n;
    r->ptr += n;
    return Z_OK;
}

/** Borrows a length-prefixed byte string whose length must not exceed max; unmoved on failure. */
ZM_NODISCARD inline z_result_t zm_read_zbytes(zm_reader_t *r, uint64_t max, zm_slice_t *out)
{
    const uint8_t *mark = r->ptr;
    uint64_t n;
    ZM_TRY(zm_read_zint_max(r, max, &n));
    if (ZM_UNLIKELY(n > zm_reader_left(r))) {
        r->ptr = mark;
        return ZM_E_TRUNCATED;
    }
    out->ptr = r->ptr;
    out->len = (size_t)n;
    r->ptr += n;
    return Z_OK;
}

/* ---- writer ---------------------------------------------------------------------------------- */

inline void zm_writer_init(zm_writer_t *w, uint8_t *buf, size_t cap)
{
    w->data = buf;
    w->len = 0;
    w->cap = cap;
}

inline size_t zm_writer_left(const zm_writer_t *w) { return w->cap - w->len; }

ZM_NODISCARD inline z_result_t zm_write_u8(zm_writer_t *w, uint8_t v)
{
    if (ZM_UNLIKELY(w->len >= w->cap)) {
        return ZM_E_NO_SPACE;
    }
    w->data[w->len++] = v;
    return Z_OK;
}

ZM_NODISCARD inline z_result_t zm_write_u16le(zm_writer_t *w, uint16_t v)
{
    if (zm_writer_left(w) < 2) {
        return ZM_E_NO_SPACE;
    }
    w->data[w->len] = (uint8_t)v;
    w->data[w->len + 1] = (uint8_t)(v >> 8);
    w->len += 2;
    return Z_OK;
}

ZM_NODISCARD inline z_result_t zm_write_bytes(zm_writer_t *w, const void *p, size_t n)
{
    if (ZM_UNLIKELY(zm_writer_left(w) < n)) {
        return ZM_E_NO_SPACE;
    }
    if (n > 0) {
        memcpy(w->data + w->len, p, n);
    }
    w->len += n;
    return Z_OK;
}

/** Encoded length of v as a zint (1..9). */
inline size_t zm_zint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80 && n < ZM_ZINT_MAX_LEN) {
        v >>= 7;
        n++;
    }
    return n;
}

/** Encodes v into out (at least 9 bytes); returns the length. */
size_t zm_zint_put(uint8_t *out, uint64_t v);

ZM_NODISCARD inline z_result_t zm_write_zint(zm_writer_t *w, uint64_t v)
{
    if (ZM_LIKELY(v < 0x80)) {
        return zm_write_u8(w, (uint8_t)v);
    }
    if (zm_writer_left(w) < zm_zint_len(v)) {
        return ZM_E_NO_SPACE;
    }
    w->len += zm_zint_put(w->data + w->len, v);
    return Z_OK;
}

/** Writes a zint length then the bytes. */
ZM_NODISCARD inline z_result_t zm_write_zbytes(zm_writer_t *w, const void *p, size_t n)
{
    size_t mark = w->len;
    ZM_TRY(zm_write_zint(w, n));
    if (ZM_UNLIKELY(zm_writer_left(w) < n)) {
        w->len = mark; /* all or nothing */
        return ZM_E_NO_SPACE;
    }
    if (n > 0) {
        memcpy(w->data + w->len, p, n);
    }
    w->len += n;
    return Z_OK;
}

#endif /* ZM_UTIL_BYTES_H */
