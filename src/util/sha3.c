/*
 * Keccak-f[1600] and the SHA3-256 sponge over it (FIPS 202), HMAC-SHA3-256 (FIPS 198-1). The
 * state is 25 little-endian lanes, filled a byte at a time by shifts, so the code reads the same
 * on any byte order. Round constants come from the standard's LFSR (algorithm 5), the rho
 * offsets and the pi walk from their recurrences (section 3.2): no table in flash.
 */
#include <string.h>

#include "util/common.h"
#include "util/sha3.h"

static uint64_t rotl64(uint64_t x, unsigned n) { return n == 0 ? x : (x << n) | (x >> (64u - n)); }

/* One output bit of the LFSR x^8 + x^6 + x^5 + x^4 + 1, advancing it. */
static unsigned lfsr_step(uint8_t *r)
{
    unsigned v = *r;
    *r = (uint8_t)((v << 1) ^ ((v & 0x80u) ? 0x71u : 0u));
    return v & 1u;
}

/* A column's parity. */
static ZM_ALWAYS_INLINE uint64_t parity(const uint64_t a[25], unsigned x) { return a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20]; }

/* The permutation. Its stack is kept small (no copy of a column's parities or of a row), as it
 * runs deep in a single-thread build's receive path: the check of a peer's credentials. */
static void keccak_f(uint64_t a[25])
{
    uint8_t lfsr = 1;
    for (unsigned round = 0; round < 24u; round++) {
        /* theta: each column's parity into its two neighbours; the parities are of the columns
         * before any changed, the first two kept for the last columns' turn */
        uint64_t p0 = parity(a, 0), p1 = parity(a, 1), prev = parity(a, 4);
        for (unsigned x = 0; x < 5u; x++) {
            uint64_t here = x == 0 ? p0 : x == 1 ? p1 : parity(a, x);
            uint64_t next = x == 4 ? p0 : x == 0 ? p1 : parity(a, x + 1u);
            uint64_t d = prev ^ rotl64(next, 1);
            for (unsigned y = 0; y < 25u; y += 5u) {
                a[y + x] ^= d;
            }
            prev = here;
        }
        /* rho and pi together: lane (x, y) moves to (y, 2x + 3y), rotated by the t-th triangular number */
        unsigned x = 1, y = 0;
        uint64_t moving = a[1];
        for (unsigned t = 0; t < 24u; t++) {
            unsigned nx = y, ny = (2u * x + 3u * y) % 5u;
            uint64_t next = a[nx + 5u * ny];
            a[nx + 5u * ny] = rotl64(moving, ((t + 1u) * (t + 2u) / 2u) % 64u);
            moving = next;
            x = nx;
            y = ny;
        }
        /* chi: each row mixed with its next two lanes, as they were: the first two kept */
        for (unsigned r = 0; r < 25u; r += 5u) {
            uint64_t l0 = a[r], l1 = a[r + 1];
            for (unsigned i = 0; i < 3u; i++) {
                a[r + i] ^= ~a[r + i + 1u] & a[r + i + 2u];
            }
            a[r + 3] ^= ~a[r + 4] & l0;
            a[r + 4] ^= ~l0 & l1;
        }
        /* iota: the round constant's bits sit at 2^j - 1 */
        for (unsigned j = 0; j < 7u; j++) {
            if (lfsr_step(&lfsr)) {
                a[0] ^= (uint64_t)1u << ((1u << j) - 1u);
            }
        }
    }
}

void zm_sha3_init(zm_sha3_t *c) { memset(c, 0, sizeof(*c)); }

void zm_sha3_update(zm_sha3_t *c, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        c->lane[c->pos / 8u] ^= (uint64_t)p[i] << (8u * (c->pos % 8u));
        if (++c->pos == ZM_SHA3_256_RATE) {
            keccak_f(c->lane);
            c->pos = 0;
        }
    }
}

void zm_sha3_final(zm_sha3_t *c, uint8_t out[ZM_SHA3_256_LEN])
{
    /* SHA-3's domain bits 01, the pad's first 1, then its last 1 at the block's end */
    c->lane[c->pos / 8u] ^= (uint64_t)0x06u << (8u * (c->pos % 8u));
    c->lane[(ZM_SHA3_256_RATE - 1u) / 8u] ^= (uint64_t)0x80u << (8u * ((ZM_SHA3_256_RATE - 1u) % 8u));
    keccak_f(c->lane);
    for (unsigned i = 0; i < ZM_SHA3_256_LEN; i++) {
        out[i] = (uint8_t)(c->lane[i / 8u] >> (8u * (i % 8u)));
    }
}

/* Absorbs the key block: the key padded with zeros, each byte xored with pad. */
static void absorb_key(zm_sha3_t *c, const uint8_t *key, size_t key_len, uint8_t pad)
{
    for (size_t i = 0; i < ZM_SHA3_256_RATE; i++) {
        uint8_t b = (uint8_t)((i < key_len ? key[i] : 0u) ^ pad);
        zm_sha3_update(c, &b, 1);
    }
}

void zm_hmac_sha3_256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                      uint8_t out[ZM_SHA3_256_LEN])
{
    ZM_ASSERT(key_len <= ZM_SHA3_256_RATE);
    /* out holds the inner digest until the outer one replaces it: one state on the stack, as the
     * check of a peer's credentials runs deep in a single-thread build's receive path */
    zm_sha3_t c;
    zm_sha3_init(&c);
    absorb_key(&c, key, key_len, 0x36u);
    zm_sha3_update(&c, msg, msg_len);
    zm_sha3_final(&c, out);
    zm_sha3_init(&c);
    absorb_key(&c, key, key_len, 0x5cu);
    zm_sha3_update(&c, out, ZM_SHA3_256_LEN);
    zm_sha3_final(&c, out);
}
