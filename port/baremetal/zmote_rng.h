/*
 * The random generator of the ports without an operating system's (port/baremetal, and
 * port/freertos): a Weyl sequence of 64 bits, which a state fed with little entropy never repeats
 * within 2^64 steps, each step's two halves stirred to one 32-bit word by lowbias32 (Wellons'
 * integer hash), whose 32-bit multiplies a Cortex-M does in one instruction. The port folds fresh
 * entropy and the clock in at each call, so two boards seeded alike drift apart as soon as their
 * timing differs, and serialises the calls if it has threads.
 */
#ifndef ZMOTE_RNG_H
#define ZMOTE_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t zm_rng_mix32(uint32_t z)
{
    z = (z ^ (z >> 16)) * 0x7feb352du;
    z = (z ^ (z >> 15)) * 0x846ca68bu;
    return z ^ (z >> 16);
}

/* Folds fresh into *state, then fills buf[0..len) from the sequence. */
static inline void zm_rng_fill(uint64_t *state, uint64_t fresh, void *buf, size_t len)
{
    uint8_t *p = buf;
    *state ^= fresh;
    while (len > 0) {
        *state += 0x9e3779b97f4a7c15ull;
        uint32_t w = zm_rng_mix32((uint32_t)(*state >> 32) ^ zm_rng_mix32((uint32_t)*state));
        size_t n = len < sizeof(w) ? len : sizeof(w);
        memcpy(p, &w, n);
        p += n;
        len -= n;
    }
}

#endif /* ZMOTE_RNG_H */
