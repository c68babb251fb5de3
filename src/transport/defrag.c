/*
 * Reassembly of fragmented messages: every transport's slots (one per channel and priority), the
 * budgets they draw on (per peer, ZM_FRAG_PEER_BYTES_MAX, and for the process, ZM_FRAG_BYTES_MAX),
 * the eviction of a reassembly that sits idle when a message is short of room, and the sweep of
 * those silent for a lease. rx.c feeds fragments in and delivers what they make.
 */
#include <string.h>

#include "transport/internal.h"
#include "util/alloc.h"
#include "util/log.h"

#if Z_FEATURE_FRAGMENTATION
/*
 * The budget of every transport's reassembly, in this process: the bytes held, and the sets that
 * hold any, so that a message short of room can take the buffer of a reassembly that sits idle.
 * Readers of several transports run at once, so all of it, and every slot's buf, cap, busy,
 * evicted and last_ms, is under one spin lock; a slot's own thread copies fragments and delivers
 * its message outside it, with the slot marked busy.
 */
static struct {
    size_t held;
    zm_defrag_set_t *sets;
} frag_budget;

#if Z_FEATURE_MULTI_THREAD
static atomic_flag frag_lock_flag = ATOMIC_FLAG_INIT;

static void frag_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&frag_lock_flag, memory_order_acquire)) {
    }
}

static void frag_unlock(void) { atomic_flag_clear_explicit(&frag_lock_flag, memory_order_release); }
#else
static void frag_lock(void) {}
static void frag_unlock(void) {}
#endif

size_t zm_transport_frag_held(void)
{
    frag_lock();
    size_t held = frag_budget.held;
    frag_unlock();
    return held;
}

/* Lock held: n more bytes held by s, which joins the list of holders if it was out of it. */
static void budget_add(zm_defrag_set_t *s, size_t n)
{
    if (s->held == 0) {
        s->prev = NULL;
        s->next = frag_budget.sets;
        if (s->next != NULL) {
            s->next->prev = s;
        }
        frag_budget.sets = s;
    }
    s->held += n;
    frag_budget.held += n;
}

/* Lock held: n bytes fewer held by s, which leaves the list once it holds none. */
static void budget_sub(zm_defrag_set_t *s, size_t n)
{
    s->held -= n;
    frag_budget.held -= n;
    if (s->held == 0 && n != 0) {
        if (s->prev != NULL) {
            s->prev->next = s->next;
        } else {
            frag_budget.sets = s->next;
        }
        if (s->next != NULL) {
            s->next->prev = s->prev;
        }
        s->prev = s->next = NULL;
    }
}

/* Lock held: d's buffer goes back to the heap and its bytes leave the budgets. */
static void slot_release(zm_defrag_set_t *s, zm_defrag_t *d)
{
    zm_free(d->buf);
    budget_sub(s, d->cap);
    d->buf = NULL;
    d->cap = 0;
}

/*
 * Lock held: frees the buffer of another reassembly, not busy and at least want bytes large (so a
 * hoard of large ones gives way to a small message, never the reverse), the one silent longest;
 * false if there is none.
 */
static bool evict_one(const zm_defrag_t *self, size_t want, uint32_t now)
{
    zm_defrag_set_t *vs = NULL;
    zm_defrag_t *victim = NULL;
    uint32_t idlest = 0;
    for (zm_defrag_set_t *s = frag_budget.sets; s != NULL; s = s->next) {
        for (unsigned i = 0; i < s->count; i++) {
            zm_defrag_t *d = &s->slot[i];
            uint32_t idle = now - d->last_ms;
            idle = idle > UINT32_MAX / 2u ? 0u : idle; /* a fragment newer than now: none silent less */
            if (d != self && d->buf != NULL && !d->busy && d->cap >= want && (victim == NULL || idle > idlest)) {
                vs = s;
                victim = d;
                idlest = idle;
            }
        }
    }
    if (victim == NULL) {
        return false;
    }
    slot_release(vs, victim);
    victim->evicted = true;
    return true;
}

/*
 * Lock held: how large d's buffer grows to take need bytes, within both budgets (evicting idle
 * reassemblies for the node's), or 0 when it may not: the message is then dropped.
 */
static size_t grow_cap(zm_defrag_set_t *s, const zm_defrag_t *d, size_t need, uint32_t now)
{
    if (need > ZM_FRAG_MAX_SIZE) {
        return 0;
    }
    /* no heap: a reassembly takes one whole block of its pool, ZM_FRAG_MAX_SIZE bytes, at once */
    size_t cap = ZM_NO_HEAP ? ZM_FRAG_MAX_SIZE : (d->cap * 2u > need ? d->cap * 2u : need);
    if (cap > ZM_FRAG_MAX_SIZE) {
        cap = ZM_FRAG_MAX_SIZE;
    }
    size_t others = s->held - d->cap; /* this peer's other reassemblies */
    if (others + cap > ZM_FRAG_PEER_BYTES_MAX) {
        cap = need;
    }
    if (others + cap > ZM_FRAG_PEER_BYTES_MAX) {
        return 0;
    }
    while (frag_budget.held - d->cap + cap > ZM_FRAG_BYTES_MAX) {
        if (!ZM_NO_HEAP && cap > need) {
            cap = need;
        } else if (!evict_one(d, cap, now)) {
            return 0;
        }
    }
    return cap;
}

/*
 * Appends part to d: Z_OK, or an error when the message is dropped (too large for a budget, its
 * buffer taken for another message, or no memory), with what was collected freed. The last part (!more)
 * leaves d busy, for its message to be delivered from d->buf.
 */
z_result_t zm_defrag_append(zm_defrag_set_t *s, zm_defrag_t *d, zm_slice_t part, bool more)
{
    uint32_t now = (uint32_t)zm_port_clock_ms();
    size_t need = d->len + part.len;
    size_t cap = 0;
    frag_lock();
    bool lost = d->evicted && d->len > 0; /* taken while idle between two messages: nothing lost */
    bool ok = !lost;
    d->evicted = false;
    if (ok && need > d->cap) {
        cap = grow_cap(s, d, need, now);
        ok = cap != 0;
        if (ok) {
            budget_add(s, cap); /* the new buffer, while the old one is still there */
        } else {
            slot_release(s, d);
        }
    }
    d->busy = ok;
    d->last_ms = now;
    frag_unlock();
    if (!ok) {
        ZM_LOG_W(lost ? "a fragmented message was dropped: its room went to a newer one (ZM_FRAG_BYTES_MAX)"
                      : "a fragmented message was dropped: over the reassembly budget (ZM_FRAG_PEER_BYTES_MAX, "
                        "ZM_FRAG_BYTES_MAX)");
        return ZM_E_NO_SPACE;
    }
    /* busy: no other thread takes d->buf until this one clears it */
    if (cap != 0) {
        uint8_t *grown = zm_alloc_frag(cap);
        if (grown != NULL && d->len > 0) {
            memcpy(grown, d->buf, d->len);
        }
        frag_lock();
        slot_release(s, d);
        if (grown != NULL) {
            d->buf = grown;
            d->cap = cap;
        } else {
            budget_sub(s, cap);
            d->busy = false;
        }
        frag_unlock();
        if (grown == NULL) {
            ZM_LOG_W("a fragmented message was dropped: no memory for its reassembly");
            return ZM_E_NOMEM;
        }
    }
    memcpy(d->buf + d->len, part.ptr, part.len);
    d->len = need;
    if (more) {
        frag_lock();
        d->busy = false;
        frag_unlock();
    }
    return Z_OK;
}

zm_defrag_t *zm_defrag_slot(zm_transport_t *t, bool reliable, uint8_t prio)
{
    zm_defrag_set_t *s = t->defrag;
    if (s == NULL) {
        uint8_t count = t->qos ? ZM_TX_CHANNELS : 2u;
        s = zm_calloc(sizeof(*s) + count * sizeof(s->slot[0]));
        if (s == NULL) {
            return NULL;
        }
        s->count = count;
        s->lease_ms = t->remote_lease_ms;
        s->batch = t->batch_size;
        t->defrag = s;
    }
    return &s->slot[t->qos ? ZM_CHANNEL(reliable, prio) : (reliable ? 1u : 0u)];
}

void zm_transport_defrag_free(zm_transport_t *t)
{
    zm_defrag_set_t *s = t->defrag;
    if (s == NULL) {
        return;
    }
    frag_lock();
    for (unsigned i = 0; i < s->count; i++) {
        slot_release(s, &s->slot[i]);
    }
    frag_unlock();
    zm_free(s);
    t->defrag = NULL;
}

void zm_defrag_sweep(zm_transport_t *t, uint32_t now)
{
    zm_defrag_set_t *s = t->defrag;
    if (s == NULL || now - t->defrag_sweep_ms < s->lease_ms / 4u) {
        return;
    }
    t->defrag_sweep_ms = now;
    frag_lock();
    for (unsigned i = 0; i < s->count; i++) {
        zm_defrag_t *d = &s->slot[i];
        if (d->buf != NULL && !d->busy && now - d->last_ms > s->lease_ms) {
            slot_release(s, d);
            zm_defrag_reset(d, d->active || d->skip); /* without First markers: wait for a message's end */
            ZM_LOG_I("a fragmented message silent for a lease was dropped");
        }
    }
    frag_unlock();
}

void zm_defrag_done(zm_transport_t *t, zm_defrag_t *d)
{
    frag_lock();
    d->busy = false;
    if (d->cap > t->defrag->batch) {
        slot_release(t->defrag, d); /* a large message's room is not kept once it is delivered */
    }
    frag_unlock();
}
#endif /* Z_FEATURE_FRAGMENTATION */
