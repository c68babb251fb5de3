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
    zm_defrag_t *d = zm_defrag_slot(t, f->reliable, prio);
    if (d == NULL) {
        ZM_LOG_W("a fragmented message was dropped: no memory for its reassembly");
        return NULL; /* as over a budget: the link stays */
    }
    unsigned ch = ZM_CHANNEL(f->reliable, prio);
    /* SNs skipped on the channel: something was lost on the way (UDP is best effort) */
    bool lost = ((f->sn - t->rx_sn[ch]) & t->sn_mask) != 1u;
    if (!sn_accept(t, ch, f->sn)) {
        zm_defrag_reset(d, d->skip); /* a duplicate or a reordering: what was collected is lost */
        return NULL;
    }
    if (t->patch >= 1) {
        if (f->first) {
            zm_defrag_reset(d, false);
            d->active = true;
        }
        if (f->drop) {
            zm_defrag_reset(d, false);
            return NULL;
        }
    } else if (!d->active) {
        /* Without First markers a fragment after a loss may be any part of a message: it and
         * what follows are dropped until a message's last fragment, after which one starts. */
        if (d->skip || lost) {
            d->skip = f->more;
            return NULL;
        }
        zm_defrag_reset(d, false);
        d->active = true;
    }
    if (!d->active) {
        return NULL; /* joined in the middle of a message */
    }
    if (d->len > 0 && f->sn != ((d->sn + 1u) & t->sn_mask)) {
        zm_defrag_reset(d, f->more); /* a fragment went missing: the message is dropped */
        return NULL;
    }
    d->sn = f->sn;
    if (zm_defrag_append(t, d, f->payload, f->more) != Z_OK) {
        zm_defrag_reset(d, f->more);
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
    zm_defrag_reset(d, false); /* d stays busy (defrag_append) while its message is decoded and delivered */
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
    zm_defrag_done(t, d);
    return rc;
}
#endif

/* Dispatches one whole batch. */
static z_result_t on_batch(zm_transport_t *t, zm_slice_t batch)
{
    if (!zm_atomic_load_relaxed(&t->rx_heard)) { /* the first batch since the lease looked */
        zm_atomic_store_relaxed(&t->rx_heard, true);
        ZM_IF_FRAGMENTATION(zm_defrag_sweep(t, (uint32_t)zm_port_clock_ms());)
    }
    /* A FRAME's or FRAGMENT's header is dead once its network messages are decoded: they take
     * its place, so that what the session does with them (and sends in reply) stacks on one
     * message, not on both. */
    union {
        zm_transport_msg_t tm;
        zm_network_msg_t nm;
#if ZM_DECODE_PUSH_PLAIN
        zm_lone_push_t lone; /* an unbatched sample, a batch of its own */
#endif
    } u;
#if ZM_DECODE_PUSH_PLAIN
    /* what the iterator below makes of a lone sample, straight */
    if (zm_batch_lone_push(batch.ptr, batch.len, t->sn_mask, &u.lone)) {
        if (sn_accept(t, ZM_CHANNEL(u.lone.reliable, ZM_PRIO_DATA), u.lone.sn)) {
            t->on_message(t->ctx, t, &u.lone.m, u.lone.reliable);
        }
        return Z_OK;
    }
#endif
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, batch.ptr, batch.len, t->sn_mask);
    for (;;) {
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
                if (zm_reader_left(&it.r) == 0) {
                    return Z_OK; /* the batch's end: the iterator has nothing more to say */
                }
            }
            break;
        }
        case ZM_MID_FRAGMENT:
            ZM_IF_FRAGMENTATION(ZM_TRY(on_fragment(t, &u.tm.body.fragment, &u.nm));)
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
    zm_atomic_store_relaxed(&t->rx_heard, true);
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
