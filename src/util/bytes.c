/* zint encoding and decoding beyond the one-byte fast path (spec 1.1: 9 bytes at most). */
#include "util/bytes.h"

/* The one external copy of each inline helper of bytes.h, for the calls a compiler does not
 * inline (a build for size leaves most of them calls). */
extern inline bool zm_fits_u32(size_t n);
extern inline zm_slice_t zm_slice(const void *ptr, size_t len);
extern inline bool zm_slice_eq(zm_slice_t a, zm_slice_t b);
extern inline void zm_reader_init(zm_reader_t *r, const uint8_t *buf, size_t len);
extern inline size_t zm_reader_left(const zm_reader_t *r);
extern inline size_t zm_reader_offset(const zm_reader_t *r);
extern inline z_result_t zm_read_u8(zm_reader_t *r, uint8_t *out);
extern inline z_result_t zm_peek_u8(const zm_reader_t *r, uint8_t *out);
extern inline z_result_t zm_read_u16le(zm_reader_t *r, uint16_t *out);
extern inline z_result_t zm_read_zint(zm_reader_t *r, uint64_t *out);
extern inline z_result_t zm_read_zint_max(zm_reader_t *r, uint64_t max, uint64_t *out);
extern inline z_result_t zm_read_z16(zm_reader_t *r, uint16_t *out);
extern inline z_result_t zm_read_z32(zm_reader_t *r, uint32_t *out);
extern inline z_result_t zm_read_bytes(zm_reader_t *r, size_t n, zm_slice_t *out);
extern inline z_result_t zm_read_zbytes(zm_reader_t *r, uint64_t max, zm_slice_t *out);
extern inline void zm_writer_init(zm_writer_t *w, uint8_t *buf, size_t cap);
extern inline size_t zm_writer_left(const zm_writer_t *w);
extern inline z_result_t zm_write_u8(zm_writer_t *w, uint8_t v);
extern inline z_result_t zm_write_u16le(zm_writer_t *w, uint16_t v);
extern inline z_result_t zm_write_bytes(zm_writer_t *w, const void *p, size_t n);
extern inline size_t zm_zint_len(uint64_t v);
extern inline z_result_t zm_write_zint(zm_writer_t *w, uint64_t v);
extern inline z_result_t zm_write_zbytes(zm_writer_t *w, const void *p, size_t n);

z_result_t zm_read_zint_slow(zm_reader_t *r, uint64_t *out)
{
    /* Its last byte found first (one without the continuation flag, or the 9th, of 8 data bits),
     * the value is gathered from there back to the first, by constant shifts. */
    const uint8_t *p = r->ptr;
    size_t last = 0;
    for (;; last++) {
        if (last >= zm_reader_left(r)) {
            return ZM_E_TRUNCATED;
        }
        if (last == ZM_ZINT_MAX_LEN - 1 || p[last] < 0x80) {
            break;
        }
    }
    uint64_t v = p[last];
    for (size_t i = last; i-- > 0;) {
        v = (v << 7) | (p[i] & 0x7fu);
    }
    r->ptr = p + last + 1;
    *out = v;
    return Z_OK;
}

size_t zm_zint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80 && n < ZM_ZINT_MAX_LEN - 1) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}
