/* zint encoding and decoding beyond the one-byte fast path (spec 1.1: 9 bytes at most). */
#include "util/bytes.h"

z_result_t zm_read_zint_slow(zm_reader_t *r, uint64_t *out)
{
    const uint8_t *p = r->ptr;
    uint64_t v = 0;
    unsigned shift = 0;
    for (unsigned i = 0; i < ZM_ZINT_MAX_LEN - 1; i++, shift += 7) {
        if (p >= r->end) {
            return ZM_E_TRUNCATED;
        }
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            r->ptr = p;
            *out = v;
            return Z_OK;
        }
    }
    /* The 9th byte carries 8 data bits and no continuation flag. */
    if (p >= r->end) {
        return ZM_E_TRUNCATED;
    }
    v |= (uint64_t)*p++ << shift;
    r->ptr = p;
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
