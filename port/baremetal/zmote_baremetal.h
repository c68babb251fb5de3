/*
 * What the bare-metal port offers the application beyond zmote/port.h: the heap's figures, so
 * a firmware can size its heap from a real run, and a way to set the wall clock once it is
 * known (RTC, GNSS, SNTP), since a board without one starts timestamps from the epoch.
 */
#ifndef ZMOTE_BAREMETAL_H
#define ZMOTE_BAREMETAL_H

#include <stddef.h>
#include <stdint.h>

#include "zmote/opt.h"

#if ZM_BAREMETAL_HEAP_STATS
/** The library's use of the heap, in bytes it asked for (the allocator's own overhead aside). */
typedef struct {
    size_t in_use;      /* bytes held now */
    size_t peak;        /* most bytes held at once since reset */
    uint32_t allocs;    /* successful allocations since reset */
    uint32_t failures;  /* allocations the heap refused */
} zm_baremetal_heap_stats_t;

/** Copies the current figures into *out. */
void zm_baremetal_heap_stats(zm_baremetal_heap_stats_t *out);
#endif

/** Sets the wall clock (zm_port_time_ns, z_time_now) to now_ns nanoseconds since the UNIX epoch;
 *  until called, it counts from the epoch at reset. */
void zm_baremetal_set_time_ns(uint64_t now_ns);

#endif /* ZMOTE_BAREMETAL_H */
