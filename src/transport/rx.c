/*
 * Receiving: one batch at a time from the link, FRAMEs checked against their channel's SN and
 * their network messages handed to the session in place (no copy), FRAGMENTs reassembled per
 * channel (reliability and priority) within the budgets of opt.h. Anything malformed is an error:
 * the caller closes the link, as Rust does (spec 3).
 */
#include <string.h>

#include "transport/internal.h"
#include "util/alloc.h"
#include "util/log.h"

#if ZM_DECODE_NETWORK
/* Accept iff the SN moves forward by less than half the SN space (spec 5.10). */
static bool sn_accept(zm_transport_t *t, unsigned ch, uint32_t sn)
{
    uint32_t gap = (sn - t->rx_sn[ch]) & t->sn_mask;
    if (gap == 0 || gap > t->sn_mask / 2u) {
        return false;
    }
    t->rx_sn[ch] = sn;
    return true;
}

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
static z_result_t defrag_append(zm_defrag_set_t *s, zm_defrag_t *d, zm_slice_t part, bool more)
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

/* Drops the message collected in d, keeping its buffer for the next one. */
static void defrag_reset(zm_defrag_t *d, bool skip)
{
    d->active = false;
    d->skip = skip;
    d->len = 0;
}

/* The slot of a fragment's channel, allocating t's slots at its first fragment (NULL: no memory). */
static zm_defrag_t *defrag_slot(zm_transport_t *t, bool reliable, uint8_t prio)
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

/* Frees the reassemblies of t that heard nothing for a lease; looks at most every quarter lease. */
static void defrag_sweep(zm_transport_t *t, uint32_t now)
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
            defrag_reset(d, d->active || d->skip); /* without First markers: wait for a message's end */
            ZM_LOG_I("a fragmented message silent for a lease was dropped");
        }
    }
    frag_unlock();
}

/*
 * Takes one fragment into its reassembly: the slot of the message it ends, busy until released,
 * or NULL while the message is unfinished, dropped or not ours (*rc: ZM_E_FIELD for a priority
 * the link has no QoS for, else Z_OK). Out of line: its frame is gone when the message is
 * delivered, so that the session's handling of it does not stack on the reassembly's.
 */
static ZM_NOINLINE zm_defrag_t *defrag_take(zm_transport_t *t, const zm_fragment_t *f, z_result_t *rc)
{
    *rc = Z_OK;
    uint8_t prio = f->has_qos ? (uint8_t)(f->qos & 7u) : ZM_PRIO_DATA;
    if (!t->qos && prio != ZM_PRIO_DATA) {
        *rc = ZM_E_FIELD;
        return NULL;
    }
    zm_defrag_t *d = defrag_slot(t, f->reliable, prio);
    if (d == NULL) {
        ZM_LOG_W("a fragmented message was dropped: no memory for its reassembly");
        return NULL; /* as over a budget: the link stays */
    }
    unsigned ch = ZM_CHANNEL(f->reliable, prio);
    /* SNs skipped on the channel: something was lost on the way (UDP is best effort) */
    bool lost = ((f->sn - t->rx_sn[ch]) & t->sn_mask) != 1u;
    if (!sn_accept(t, ch, f->sn)) {
        defrag_reset(d, d->skip); /* a duplicate or a reordering: what was collected is lost */
        return NULL;
    }
    if (t->patch >= 1) {
        if (f->first) {
            defrag_reset(d, false);
            d->active = true;
        }
        if (f->drop) {
            defrag_reset(d, false);
            return NULL;
        }
    } else if (!d->active) {
        /* Without First markers a fragment after a loss may be any part of a message: it and
         * what follows are dropped until a message's last fragment, after which one starts. */
        if (d->skip || lost) {
            d->skip = f->more;
            return NULL;
        }
        defrag_reset(d, false);
        d->active = true;
    }
    if (!d->active) {
        return NULL; /* joined in the middle of a message */
    }
    if (d->len > 0 && f->sn != ((d->sn + 1u) & t->sn_mask)) {
        defrag_reset(d, f->more); /* a fragment went missing: the message is dropped */
        return NULL;
    }
    d->sn = f->sn;
    if (defrag_append(t->defrag, d, f->payload, f->more) != Z_OK) {
        defrag_reset(d, f->more);
        return NULL; /* dropped, as Rust drops a message its reassembly cannot take: the link stays */
    }
    return f->more ? NULL : d;
}

/*
 * The reassembled message is decoded into *out, which overlays *f (on_batch's one message
 * buffer): f is read for the last time before out is written.
 */
static z_result_t on_fragment(zm_transport_t *t, const zm_fragment_t *f, zm_network_msg_t *out)
{
    z_result_t rc;
    zm_defrag_t *d = defrag_take(t, f, &rc);
    if (d == NULL) {
        return rc;
    }
    bool reliable = f->reliable;
    size_t len = d->len;
    defrag_reset(d, false); /* d stays busy (defrag_append) while its message is decoded and delivered */
    if (len == 0 || zm_network_decodes(d->buf[0])) { /* else one this build takes nothing from (batch.c) */
        zm_reader_t r;
        zm_reader_init(&r, d->buf, len);
        rc = zm_network_decode(&r, out);
        if (rc == Z_OK && zm_reader_left(&r) != 0) {
            rc = ZM_E_TRAILING;
        }
        if (rc == Z_OK) {
            t->on_message(t->ctx, t, out, reliable);
        }
    }
    frag_lock();
    d->busy = false;
    if (d->cap > t->defrag->batch) {
        slot_release(t->defrag, d); /* a large message's room is not kept once it is delivered */
    }
    frag_unlock();
    return rc;
}
#endif

/* Dispatches one whole batch. */
static z_result_t on_batch(zm_transport_t *t, zm_slice_t batch)
{
    uint32_t now = (uint32_t)zm_port_clock_ms();
    zm_atomic_store_relaxed(&t->last_rx_ms, now);
#if Z_FEATURE_FRAGMENTATION
    defrag_sweep(t, now);
#endif
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, batch.ptr, batch.len, t->sn_mask);
    for (;;) {
        /* A FRAME's or FRAGMENT's header is dead once its network messages are decoded: they
         * take its place, so that what the session does with them (and sends in reply) stacks
         * on one message, not on both. */
        union {
            zm_transport_msg_t tm;
            zm_network_msg_t nm;
        } u;
        bool got;
        ZM_TRY(zm_batch_next(&it, &u.tm, &got));
        if (!got) {
            return Z_OK;
        }
        switch (u.tm.id) {
        case ZM_MID_FRAME: {
            const zm_frame_t *f = &u.tm.body.frame;
            uint8_t prio = f->has_qos ? (uint8_t)(f->qos & 7u) : ZM_PRIO_DATA;
            if (!t->qos && prio != ZM_PRIO_DATA) {
                return ZM_E_FIELD;
            }
            bool reliable = f->reliable;
            bool deliver = sn_accept(t, ZM_CHANNEL(reliable, prio), f->sn);
            for (;;) {
                ZM_TRY(zm_batch_next_network(&it, &u.nm, &got));
                if (!got) {
                    break;
                }
                if (deliver) {
                    t->on_message(t->ctx, t, &u.nm, reliable);
                }
            }
            break;
        }
        case ZM_MID_FRAGMENT:
#if Z_FEATURE_FRAGMENTATION
            ZM_TRY(on_fragment(t, &u.tm.body.fragment, &u.nm));
#endif
            break; /* without reassembly, a fragmented message is dropped: its SNs are skipped */
        case ZM_MID_KEEP_ALIVE:
        case ZM_MID_T_OAM:
            break;
        case ZM_MID_CLOSE:
            if (ZM_LOG_LEVEL >= ZM_LOG_WARN) { /* only warnings read it */
                t->rx_said_close = true;
            }
            return ZM_E_CLOSED;
#if Z_FEATURE_MULTICAST_TRANSPORT
        case ZM_MID_JOIN:
            if (!t->member) {
                return ZM_E_FIELD;
            }
            ZM_TRY(zm_mcast_member_join(t, &u.tm.body.join));
            break;
#endif
        default:
            return ZM_E_FIELD; /* INIT, OPEN or JOIN on an established unicast link */
        }
    }
}
#else
/*
 * A build that takes nothing from network messages reads a batch up to its first FRAME, FRAGMENT
 * or OAM and skips the rest unread, sequence numbers included. What it could miss there is a
 * KEEP_ALIVE, which the batch itself stands for (it kept the lease), or a CLOSE, which Rust sends
 * in a batch of its own. Before that, a message of the handshake is as much an error as ever.
 */
static z_result_t on_batch(zm_transport_t *t, zm_slice_t batch)
{
    zm_atomic_store_relaxed(&t->last_rx_ms, (uint32_t)zm_port_clock_ms());
    zm_reader_t r;
    zm_reader_init(&r, batch.ptr, batch.len);
    while (zm_reader_left(&r) > 0) {
        if (!zm_transport_decodes(*r.ptr)) {
            return Z_OK; /* a FRAME, FRAGMENT or OAM: the rest goes unread */
        }
        zm_transport_msg_t m;
        ZM_TRY(zm_transport_decode(&r, t->sn_mask, &m));
        if (m.id == ZM_MID_CLOSE) {
            if (ZM_LOG_LEVEL >= ZM_LOG_WARN) { /* only warnings read it */
                t->rx_said_close = true;
            }
            return ZM_E_CLOSED;
        }
        if (m.id != ZM_MID_KEEP_ALIVE) {
            return ZM_E_FIELD; /* INIT or OPEN on an established link */
        }
    }
    return Z_OK;
}
#endif

#if Z_FEATURE_MULTICAST_TRANSPORT
z_result_t zm_transport_rx_batch(zm_transport_t *t, zm_slice_t batch) { return on_batch(t, batch); }
#endif

#if Z_FEATURE_MULTI_THREAD
z_result_t zm_transport_read_once(zm_transport_t *t)
{
    zm_slice_t batch;
    ZM_TRY(zm_link_recv_batch(&t->link, t->rx_buf, t->rx_cap, &batch));
    return on_batch(t, batch);
}
#endif

z_result_t zm_transport_try_read_once(zm_transport_t *t)
{
    zm_slice_t batch;
    ZM_TRY(zm_link_try_recv_batch(&t->link, t->rx_buf, t->rx_cap, &batch));
    return on_batch(t, batch);
}
