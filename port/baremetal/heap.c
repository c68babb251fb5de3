/*
 * The heap behind zm_alloc on bare metal, in one small file so that a board can swap it: the
 * C library's malloc by default (newlib's, over the linker script's heap), or any allocator
 * named by ZM_BAREMETAL_HEAP_ALLOC / ZM_BAREMETAL_HEAP_FREE. With ZM_BAREMETAL_HEAP_STATS each
 * block carries its size in a header so the port can report the bytes in use and their peak.
 */
#include <stddef.h>
#include <stdlib.h>

#include "zmote/port.h"
#include "zmote_baremetal.h"

#ifndef ZM_BAREMETAL_HEAP_ALLOC
#define ZM_BAREMETAL_HEAP_ALLOC malloc
#endif
#ifndef ZM_BAREMETAL_HEAP_FREE
#define ZM_BAREMETAL_HEAP_FREE free
#endif

#if ZM_BAREMETAL_HEAP_STATS

/* The block's size, padded so that what follows keeps the allocator's alignment. */
typedef union {
    size_t size;
    max_align_t align;
} block_header_t;

/* One thread, and no allocation from interrupt handlers: plain counters. */
static zm_baremetal_heap_stats_t stats;

void *zm_port_malloc(size_t size)
{
    block_header_t *h = NULL;
    if (size <= SIZE_MAX - sizeof(*h)) {
        h = ZM_BAREMETAL_HEAP_ALLOC(sizeof(*h) + size);
    }
    if (h == NULL) {
        stats.failures++;
        return NULL;
    }
    h->size = size;
    stats.allocs++;
    stats.in_use += size;
    if (stats.in_use > stats.peak) {
        stats.peak = stats.in_use;
    }
    return h + 1;
}

void zm_port_free(void *ptr)
{
    if (ptr != NULL) {
        block_header_t *h = (block_header_t *)ptr - 1;
        stats.in_use -= h->size;
        ZM_BAREMETAL_HEAP_FREE(h);
    }
}

void zm_baremetal_heap_stats(zm_baremetal_heap_stats_t *out) { *out = stats; }

#else

void *zm_port_malloc(size_t size) { return ZM_BAREMETAL_HEAP_ALLOC(size); }

void zm_port_free(void *ptr) { ZM_BAREMETAL_HEAP_FREE(ptr); }

#endif
