/**
 * @file
 * Compatibility header: zenoh-pico's z_scout example sizes the zids it prints with _z_id_len, a
 * function of its internal protocol/core.h that its zenoh-pico.h brings along. zmote keeps that
 * header's path with only that function, zenoh-pico's name (hence the leading underscore) and
 * result; include/zenoh-pico.h includes it.
 */
#ifndef ZMOTE_COMPAT_PROTOCOL_CORE_H
#define ZMOTE_COMPAT_PROTOCOL_CORE_H

#include "zmote.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of id up to its last nonzero one (0 for the all-zero id): its length on the wire. */
static inline uint8_t _z_id_len(z_id_t id)
{
    uint8_t len = (uint8_t)sizeof(id.id);
    while (len > 0 && id.id[len - 1] == 0) {
        len--;
    }
    return len;
}

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_COMPAT_PROTOCOL_CORE_H */
