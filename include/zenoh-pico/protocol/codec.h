/**
 * @file
 * Compatibility header: zenoh-pico's z_pub_thr example includes this internal header of its
 * codec to size its batches with _z_zint_len. zmote's codec is not public, so this provides only
 * that function, with zenoh-pico's name (hence the leading underscore) and result type.
 */
#ifndef ZMOTE_COMPAT_PROTOCOL_CODEC_H
#define ZMOTE_COMPAT_PROTOCOL_CODEC_H

#include "zmote.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes v takes as a zint on the wire: 7 bits per byte, at most 9 bytes (the 9th holds 8). */
static inline uint8_t _z_zint_len(uint64_t v)
{
    uint8_t n = 1;
    while (v >= 0x80 && n < 9) {
        v >>= 7;
        n++;
    }
    return n;
}

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_COMPAT_PROTOCOL_CODEC_H */
