/*
 * SHA3-256 (FIPS 202) and HMAC over it (FIPS 198-1, block of 136 bytes, the hash's rate): what
 * Rust Zenoh's user/password authentication signs with. Small rather than fast: a handshake
 * hashes a few hundred bytes once, and a microcontroller pays for every byte of code, so the
 * permutation computes its round constants and its lane offsets instead of reading tables.
 */
#ifndef ZM_UTIL_SHA3_H
#define ZM_UTIL_SHA3_H

#include <stddef.h>
#include <stdint.h>

#define ZM_SHA3_256_LEN 32u
#define ZM_SHA3_256_RATE 136u /* bytes absorbed per permutation; HMAC's block */

typedef struct {
    uint64_t lane[25];
    uint8_t pos; /* bytes absorbed into the current block */
} zm_sha3_t;

void zm_sha3_init(zm_sha3_t *c);
/** Absorbs n bytes (borrowed for the call). */
void zm_sha3_update(zm_sha3_t *c, const uint8_t *p, size_t n);
/** Pads, squeezes the digest into out; c must be initialised again before further use. */
void zm_sha3_final(zm_sha3_t *c, uint8_t out[ZM_SHA3_256_LEN]);

/** HMAC-SHA3-256 of msg under key, into out. Keys longer than a block (which HMAC hashes first)
 *  are not taken: user/password authentication keys with 8 bytes. */
void zm_hmac_sha3_256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                      uint8_t out[ZM_SHA3_256_LEN]);

#endif /* ZM_UTIL_SHA3_H */
