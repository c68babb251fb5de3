/*
 * zmote's own addition to the API: the figures of a no-heap build's pools (ZM_NO_HEAP,
 * ZM_POOL_CLASSES), so that a firmware can size them from a real run.
 */
#ifndef ZMOTE_POOL_H
#define ZMOTE_POOL_H

#include <stddef.h>

/** One pool: its block size and count, the blocks in use now and the most ever in use at once. */
typedef struct {
    size_t size;
    size_t count;
    size_t used;
    size_t peak;
} zm_pool_stat_t;

/**
 * Fills out[0..cap) with one entry per pool, smallest blocks first, and returns how many pools
 * there are (0 in a build with a heap).
 */
size_t zm_pool_stats(zm_pool_stat_t *out, size_t cap);

#endif /* ZMOTE_POOL_H */
