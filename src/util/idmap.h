/*
 * A map from 32-bit ids to pointers: the tables of what a remote peer declares (key expressions,
 * subscribers) and of what we declare, looked up on every sample that names an id. Open
 * addressing with linear probing and backward-shift removal, so lookups, inserts and removals
 * are O(1) on average and nothing is left behind by removals. Ids are chosen by the remote
 * side, so slots come from a keyed hash with a per-map random seed: a peer cannot aim its ids
 * at one chain. The map grows by doubling, through zm_alloc, up to the bound its owner checks.
 *
 * Not thread-safe: the owner's lock (or its single thread) guards a map.
 */
#ifndef ZM_UTIL_IDMAP_H
#define ZM_UTIL_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

typedef struct {
    uint32_t id;
    void *val; /* NULL marks a free slot */
} zm_idmap_slot_t;

typedef struct {
    zm_idmap_slot_t *slots; /* cap entries, cap a power of two, or NULL while empty */
    uint32_t cap;
    uint32_t n;
    uint32_t seed;
} zm_idmap_t;

/** An empty map; seed keys its hash (a random value for ids chosen by a remote peer). */
void zm_idmap_init(zm_idmap_t *m, uint32_t seed);

/** Frees the slot array; the values are the caller's to free first (see zm_idmap_foreach). */
void zm_idmap_free(zm_idmap_t *m);

/** The value stored for id, or NULL. */
void *zm_idmap_get(const zm_idmap_t *m, uint32_t id);

/**
 * Stores val (not NULL) for id. When id was there already its value is replaced and the old
 * one returned through *old (NULL otherwise). ZM_E_NOMEM if the map had to grow and could not:
 * then the map is as it was.
 */
ZM_NODISCARD z_result_t zm_idmap_put(zm_idmap_t *m, uint32_t id, void *val, void **old);

/** Removes id; returns its value, or NULL if it was not there. */
void *zm_idmap_remove(zm_idmap_t *m, uint32_t id);

/** Number of ids stored. */
static inline uint32_t zm_idmap_len(const zm_idmap_t *m) { return m->n; }

/**
 * Visits every stored value, in no particular order; fn must not change the map. Returns early
 * when fn returns false.
 */
void zm_idmap_foreach(const zm_idmap_t *m, bool (*fn)(uint32_t id, void *val, void *ctx), void *ctx);

/**
 * Steps through the map without a callback, for a caller that lets go of its lock between
 * entries: from slot *pos on, the next stored id and value, *pos moved past it; false at the
 * end. Start with *pos = 0. A map that grew meanwhile (its cap changed) moved its entries: start
 * again, since an entry may otherwise be missed (and others seen twice).
 */
bool zm_idmap_next(const zm_idmap_t *m, uint32_t *pos, uint32_t *id, void **val);

#endif /* ZM_UTIL_IDMAP_H */
