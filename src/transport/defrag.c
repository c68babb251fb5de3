/*
 * Reassembly of fragmented messages: every transport's slots (one per channel and priority), the
 * budgets they draw on (per peer, ZM_FRAG_PEER_BYTES_MAX, and the session's account: ZM_FRAG_BYTES_MAX
 * for reassembly, ZM_SESSION_BYTES_MAX in all), the eviction of a reassembly of the same session
 * that sits idle when a message is short of room, and the sweep of those silent for a lease.
 * rx.c feeds fragments in and delivers what they make.
 */
#include <string.h>

#include "transport/internal.h"
#include "util/alloc.h"
#include "util/log.h"

#if Z_FEATURE_FRAGMENTATION
/* The share's lock (transport.h): a spin lock, as nothing under it waits. */
static void frag_lock(zm_defrag_share_t *sh)
{
    ZM_IF_THREADS(while (atomic_flag_test_and_set_explicit(&sh->lock, memory_order_acquire)){});
    ZM_UNUSED(sh);
}

static void frag_unlock(zm_defrag_share_t *sh)
{
    ZM_IF_THREADS(atomic_flag_clear_explicit(&sh->lock, memory_order_release));
    ZM_UNUSED(sh);
}

/* Lock held: the bytes every reassembly of the session holds (only charged under this lock). */
static size_t frags_held(zm_defrag_share_t *sh) { return zm_account_held(sh->account, ZM_HELD_FRAGS); }

/* Lock held: n more bytes held by s, within the session's account (false: refused, nothing
 * charged); s joins the list of holders if it was out of it. */
static bool budget_add(zm_defrag_share_t *sh, zm_defrag_set_t *s, size_t n)
{
    if (!zm_account_charge(sh->account, ZM_HELD_FRAGS, n)) {
        return false;
    }
    if (s->held == 0 && n != 0) {
        s->prev = NULL;
        s->next = sh->sets;
        if (s->next != NULL) {
            s->next->prev = s;
        }
        sh->sets = s;
    }
    s->held += n;
    return true;
}

/* Lock held: n bytes fewer held by s, which leaves the list once it holds none. */
static void budget_sub(zm_defrag_share_t *sh, zm_defrag_set_t *s, size_t n)
{
    zm_account_refund(sh->account, ZM_HELD_FRAGS, n);
    s->held -= n;
    if (s->held == 0 && n != 0) {
        if (s->prev != NULL) {
            s->prev->next = s->next;
        } else {
            sh->sets = s->next;
        }
        if (s->next != NULL) {
            s->next->prev = s->prev;
        }
        s->prev = s->next = NULL;
    }
}

/* Lock held: d's buffer goes back to the heap and its bytes leave the budgets. */
static void slot_release(zm_defrag_share_t *sh, zm_defrag_set_t *s, zm_defrag_t *d)
{
    zm_free(d->buf);
    budget_sub(sh, s, d->cap);
    d->buf = NULL;
    d->cap = 0;
}

/*
 * Lock held: frees the buffer of another reassembly of the session, not busy and at least want
 * bytes large (so a hoard of large ones gives way to a small message, never the reverse), the one
 * silent longest; false if there is none.
 */
static bool evict_one(zm_defrag_share_t *sh, const zm_defrag_t *self, size_t want, uint32_t now)
{
    zm_defrag_set_t *vs = NULL;
    zm_defrag_t *victim = NULL;
    uint32_t idlest = 0;
    for (zm_defrag_set_t *s = sh->sets; s != NULL; s = s->next) {
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
    slot_release(sh, vs, victim);
    victim->evicted = true;
    return true;
}

/*
 * Lock held: how large d's buffer grows to take need bytes, within the peer's budget and the
 * session's reassembly bound (evicting idle reassemblies of the session), or 0 when it may not:
 * the message is then dropped.
 */
static size_t grow_cap(zm_defrag_share_t *sh, zm_defrag_set_t *s, const zm_defrag_t *d, size_t need, uint32_t now)
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
    while (frags_held(sh) - d->cap + cap > ZM_FRAG_BYTES_MAX) {
        if (!ZM_NO_HEAP && cap > need) {
            cap = need;
        } else if (!evict_one(sh, d, cap, now)) {
            return 0;
        }
    }
    return cap;
}

/*
 * Appends part to t's slot d: Z_OK, or an error when the message is dropped (too large for a
 * budget, its buffer taken for another message, or no memory), with what was collected freed.
 * The last part (!more) leaves d busy, for its message to be delivered from d->buf. A buffer that
 * grows is charged at its new size at once; the old one, freed once copied, is not counted meanwhile.
 */
z_result_t zm_defrag_append(zm_transport_t *t, zm_defrag_t *d, zm_slice_t part, bool more)
{
    zm_defrag_share_t *sh = t->share;
    zm_defrag_set_t *s = t->defrag;
    uint32_t now = (uint32_t)zm_port_clock_ms();
    size_t need = d->len + part.len;
    size_t cap = 0;
    const char *why = NULL;
    frag_lock(sh);
    if (d->evicted && d->len > 0) { /* taken while idle between two messages: nothing lost */
        why = "its room went to a newer one (ZM_FRAG_BYTES_MAX)";
    }
    d->evicted = false;
    if (why == NULL && need > d->cap) {
        cap = grow_cap(sh, s, d, need, now);
        if (cap == 0) {
            why = "over the reassembly budget (ZM_FRAG_PEER_BYTES_MAX, ZM_FRAG_BYTES_MAX)";
        } else if (!budget_add(sh, s, cap - d->cap)) {
            why = "over the session's memory budget (ZM_SESSION_BYTES_MAX)";
        } else {
            d->cap = cap;
        }
        if (why != NULL) {
            slot_release(sh, s, d);
        }
    }
    d->busy = why == NULL;
    d->last_ms = now;
    frag_unlock(sh);
    if (why != NULL) {
        ZM_LOG_W("a fragmented message was dropped: %s", why);
        return ZM_E_NO_SPACE;
    }
    /* busy: no other thread takes d->buf until this one clears it */
    if (cap != 0) {
        uint8_t *grown = zm_alloc_frag(cap);
        if (grown != NULL && d->len > 0) {
            memcpy(grown, d->buf, d->len);
        }
        zm_free(d->buf);
        frag_lock(sh);
        d->buf = grown;
        if (grown == NULL) {
            budget_sub(sh, s, d->cap);
            d->cap = 0;
            d->busy = false;
        }
        frag_unlock(sh);
        if (grown == NULL) {
            ZM_LOG_W("a fragmented message was dropped: no memory for its reassembly");
            return ZM_E_NOMEM;
        }
    }
    memcpy(d->buf + d->len, part.ptr, part.len);
    d->len = need;
    if (more) {
        frag_lock(sh);
        d->busy = false;
        frag_unlock(sh);
    }
    return Z_OK;
}

zm_defrag_t *zm_defrag_slot(zm_transport_t *t, bool reliable, uint8_t prio)
{
    zm_defrag_set_t *s = t->defrag;
    ZM_ASSERT(t->share != NULL);
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
    frag_lock(t->share);
    for (unsigned i = 0; i < s->count; i++) {
        slot_release(t->share, s, &s->slot[i]);
    }
    frag_unlock(t->share);
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
    frag_lock(t->share);
    for (unsigned i = 0; i < s->count; i++) {
        zm_defrag_t *d = &s->slot[i];
        if (d->buf != NULL && !d->busy && now - d->last_ms > s->lease_ms) {
            slot_release(t->share, s, d);
            zm_defrag_reset(d, d->active || d->skip); /* without First markers: wait for a message's end */
            ZM_LOG_I("a fragmented message silent for a lease was dropped");
        }
    }
    frag_unlock(t->share);
}

void zm_defrag_done(zm_transport_t *t, zm_defrag_t *d)
{
    frag_lock(t->share);
    d->busy = false;
    if (d->cap > t->defrag->batch) {
        slot_release(t->share, t->defrag, d); /* a large message's room is not kept once it is delivered */
    }
    frag_unlock(t->share);
}
#endif /* Z_FEATURE_FRAGMENTATION */
