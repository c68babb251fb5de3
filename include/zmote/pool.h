/**
 * @file
 * zmote's own addition to the API: the figures of a no-heap build's pools (ZM_NO_HEAP,
 * ZM_POOL_CLASSES), so that a firmware can size them from a real run.
 */
#ifndef ZMOTE_POOL_H
#define ZMOTE_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One pool: its block size and count, the blocks in use now and the most ever in use at once. */
typedef struct {
    size_t size;  /**< bytes of each block */
    size_t count; /**< blocks in the pool */
    size_t used;  /**< blocks in use now */
    size_t peak;  /**< most blocks ever in use at once */
} zm_pool_stat_t;

/**
 * Fills out[0..cap) with one entry per pool, smallest blocks first, then reassembly's own
 * (ZM_FRAG_POOL_BLOCKS), and returns how many pools there are (0 in a build with a heap). Entries
 * beyond cap are not written, so call it with cap 0 to learn the count. The figures are one consistent snapshot, taken under the pools' spin lock
 * (held as briefly as an allocation holds it); callable from any thread. Allocates nothing.
 */
size_t zm_pool_stats(zm_pool_stat_t *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_POOL_H */
