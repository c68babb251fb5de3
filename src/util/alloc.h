/*
 * Every allocation of zmote goes through zm_alloc/zm_free, so that a build can swap the heap
 * for a static arena, and a test can count allocations or make the Nth one fail.
 */
#ifndef ZM_UTIL_ALLOC_H
#define ZM_UTIL_ALLOC_H

#include <stddef.h>

#include "zmote/pool.h"

typedef struct {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *ptr);
    void *ctx;
} zm_allocator_t;

/** Returns size bytes, or NULL when memory is exhausted. */
void *zm_alloc(size_t size);
/** zm_alloc for reassembly: in a no-heap build, from its own pool only (ZM_FRAG_POOL_BLOCKS). */
void *zm_alloc_frag(size_t size);
/** Returns size zeroed bytes, or NULL. */
void *zm_calloc(size_t size);
void zm_free(void *ptr);
/** Installs a, or the default heap when a is NULL. Not thread-safe: call before any session. */
void zm_allocator_set(const zm_allocator_t *a);

/* zm_pool_stats, the figures of a no-heap build's pools, is public: zmote/pool.h. */

#endif /* ZM_UTIL_ALLOC_H */
