/*
 * The id map of idmap.h. The load factor stays at or below 3/4, so a probe run is short; a
 * removal shifts the following run back instead of leaving a tombstone, so a table that sees
 * many declare/undeclare cycles never degrades.
 */
#include "util/idmap.h"

#include <string.h>

#include "util/alloc.h"

#define IDMAP_MIN_CAP 8u

/* A keyed multiply-xorshift mix: the seed makes slot choice unpredictable to the remote side. */
static uint32_t slot_of(const zm_idmap_t *m, uint32_t id)
{
    uint32_t h = (id ^ m->seed) * 0x9e3779b1u;
    h ^= h >> 15;
    h *= 0x85ebca77u;
    h ^= h >> 13;
    return h & (m->cap - 1u);
}

void zm_idmap_init(zm_idmap_t *m, uint32_t seed)
{
    memset(m, 0, sizeof(*m));
    m->seed = seed;
}

void zm_idmap_free(zm_idmap_t *m)
{
    zm_free(m->slots);
    m->slots = NULL;
    m->cap = 0;
    m->n = 0;
}

static zm_idmap_slot_t *find(const zm_idmap_t *m, uint32_t id)
{
    if (m->n == 0) {
        return NULL;
    }
    for (uint32_t i = slot_of(m, id);; i = (i + 1u) & (m->cap - 1u)) {
        zm_idmap_slot_t *s = &m->slots[i];
        if (s->val == NULL) {
            return NULL;
        }
        if (s->id == id) {
            return s;
        }
    }
}

void *zm_idmap_get(const zm_idmap_t *m, uint32_t id)
{
    const zm_idmap_slot_t *s = find(m, id);
    return s != NULL ? s->val : NULL;
}

/* Places an id known to be absent; the table has room. */
static void place(zm_idmap_t *m, uint32_t id, void *val)
{
    uint32_t i = slot_of(m, id);
    while (m->slots[i].val != NULL) {
        i = (i + 1u) & (m->cap - 1u);
    }
    m->slots[i].id = id;
    m->slots[i].val = val;
    m->n++;
}

static z_result_t grow(zm_idmap_t *m)
{
    uint32_t cap = m->cap ? m->cap * 2u : IDMAP_MIN_CAP;
    if (cap == 0 || cap > UINT32_MAX / 2u) {
        return ZM_E_NOMEM;
    }
    zm_idmap_slot_t *slots = zm_calloc((size_t)cap * sizeof(*slots));
    if (slots == NULL) {
        return ZM_E_NOMEM;
    }
    zm_idmap_t old = *m;
    m->slots = slots;
    m->cap = cap;
    m->n = 0;
    for (uint32_t i = 0; i < old.cap; i++) {
        if (old.slots[i].val != NULL) {
            place(m, old.slots[i].id, old.slots[i].val);
        }
    }
    zm_free(old.slots);
    return Z_OK;
}

z_result_t zm_idmap_put(zm_idmap_t *m, uint32_t id, void *val, void **old)
{
    ZM_ASSERT(val != NULL);
    zm_idmap_slot_t *s = find(m, id);
    if (s != NULL) {
        *old = s->val;
        s->val = val;
        return Z_OK;
    }
    *old = NULL;
    if ((m->n + 1u) * 4u > m->cap * 3u) {
        ZM_TRY(grow(m));
    }
    place(m, id, val);
    return Z_OK;
}

void *zm_idmap_remove(zm_idmap_t *m, uint32_t id)
{
    zm_idmap_slot_t *s = find(m, id);
    if (s == NULL) {
        return NULL;
    }
    void *val = s->val;
    uint32_t mask = m->cap - 1u;
    uint32_t hole = (uint32_t)(s - m->slots);
    /* Backward shift: every entry of the run after the hole that may live at the hole moves
     * there, so a lookup never meets a gap before its entry. */
    for (uint32_t i = (hole + 1u) & mask; m->slots[i].val != NULL; i = (i + 1u) & mask) {
        uint32_t home = slot_of(m, m->slots[i].id);
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            m->slots[hole] = m->slots[i];
            hole = i;
        }
    }
    m->slots[hole].val = NULL;
    m->n--;
    return val;
}

void zm_idmap_foreach(const zm_idmap_t *m, bool (*fn)(uint32_t id, void *val, void *ctx), void *ctx)
{
    for (uint32_t i = 0; i < m->cap; i++) {
        if (m->slots[i].val != NULL && !fn(m->slots[i].id, m->slots[i].val, ctx)) {
            return;
        }
    }
}

bool zm_idmap_next(const zm_idmap_t *m, uint32_t *pos, uint32_t *id, void **val)
{
    for (uint32_t i = *pos; i < m->cap; i++) {
        if (m->slots[i].val != NULL) {
            *id = m->slots[i].id;
            *val = m->slots[i].val;
            *pos = i + 1u;
            return true;
        }
    }
    *pos = m->cap;
    return false;
}
