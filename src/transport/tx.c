/*
 * Sending: network messages are appended to the open FRAME of their channel in the current
 * batch; a batch goes out when it is full, when the caller flushes, or at once when batching is
 * off. A message too large for an empty batch is encoded whole into a reusable buffer and cut
 * into FRAGMENTs, each alone in its batch, as Rust expects (spec 5.6).
 *
 * Congestion control decides per batch how long to wait for a peer that does not read: a batch
 * is dropped whole before its first byte leaves, never in the middle (that would break the
 * stream), so the sequence numbers it took are given back and the peer sees no gap.
 */
#include <string.h>

#include "transport/internal.h"
#include "util/alloc.h"
#include "util/log.h"

#if Z_FEATURE_MULTI_THREAD
#define TX_LOCK(t) zm_port_mutex_lock(&(t)->tx_lock)
#define TX_TRYLOCK(t) zm_port_mutex_trylock(&(t)->tx_lock)
#define TX_UNLOCK(t) zm_port_mutex_unlock(&(t)->tx_lock)
#else
#define TX_LOCK(t) ((void)0)
#define TX_TRYLOCK(t) true
#define TX_UNLOCK(t) ((void)0)
#endif

/*
 * How long the lease task lets a keep-alive, or a batch left open by batching mode, take once
 * its first byte left (it never waits for the first one). It serves every peer in turn, so one
 * peer that stops reading must not delay the others' keep-alives by a whole block timeout.
 */
#define LEASE_SEND_MS 100u

/* tx_lock held. The batch is gone: sent, dropped or lost with its link. */
static void batch_reset(zm_transport_t *t)
{
    t->tx.len = 0;
    if (ZM_TX_BATCHING) {
        t->tx_frame = -1;
        t->tx_msgs = 0;
    }
    t->tx_block = false;
}

/*
 * tx_lock held. Hands the batch to the link: its first byte within first_ms, all of it within
 * all_ms (see zm_link_send_batch). Where ZM_TX_TRY_FIRST, it is tried at once first, and the
 * clock is read only when that falls short. On ZM_E_AGAIN the batch stays in place for the
 * caller to retry or drop; otherwise it is gone.
 */
static z_result_t write_batch(zm_transport_t *t, uint32_t first_ms, uint32_t all_ms)
{
    uint8_t *batch = t->tx_buf + ZM_LINK_HEADROOM;
    z_result_t rc = ZM_E_AGAIN;
    if (ZM_TX_TRY_FIRST) {
        rc = zm_link_send_batch_now(&t->link, batch, t->tx.len, all_ms);
    }
    if (rc == ZM_E_AGAIN && (first_ms > 0 || !ZM_TX_TRY_FIRST)) {
        uint64_t now = zm_port_clock_ms();
        /* No room at all: the peer is not reading. While we wait for it, DROP senders need not
         * queue for tx_lock behind us (a writer merely descheduled is not flagged). */
        ZM_IF_THREADS(atomic_store_explicit(&t->tx_waiting_since, (uint32_t)now != 0 ? (uint32_t)now : 1u,
                                            memory_order_relaxed);)
        rc = zm_link_send_batch(&t->link, batch, t->tx.len, now + first_ms, now + all_ms);
        ZM_IF_THREADS(atomic_store_explicit(&t->tx_waiting_since, 0u, memory_order_relaxed);)
    }
    if (rc == ZM_E_AGAIN) {
        return rc;
    }
    batch_reset(t);
    if (rc == Z_OK) {
        t->tx_congested = false;
        t->tx_sent = true; /* no clock read per send: the lease tick dates it */
#if !ZM_TX_ONE_FRAME
        memcpy(t->tx_sn_sent, t->tx_sn, sizeof(t->tx_sn_sent));
#endif
    }
    return rc;
}

/* tx_lock held. Nothing of the batch left: its messages are lost, its sequence numbers reused. */
static void batch_drop(zm_transport_t *t)
{
    t->tx_dropped += ZM_TX_BATCHING ? t->tx_msgs : 1u; /* else its one message */
    if (!t->tx_congested) {
        t->tx_congested = true;
        t->tx_congested_since_ms = (uint32_t)zm_port_clock_ms();
    }
#if !ZM_TX_ONE_FRAME
    memcpy(t->tx_sn, t->tx_sn_sent, sizeof(t->tx_sn));
#endif
    batch_reset(t);
}

/* tx_lock held. The link failed, or the peer did not read for a whole block timeout, or stopped
 * in the middle of a batch: it can carry nothing more. Shutting it makes the reader return too. */
static z_result_t declare_dead(zm_transport_t *t, z_result_t rc)
{
    if (rc == ZM_E_TIMEOUT) {
        ZM_LOG_W("transport: the peer stopped reading, link dropped");
    }
    zm_link_shutdown(&t->link);
    return rc;
}

/* tx_lock held. Writes out the batch with the congestion control of what it holds: Z_OK when it
 * went out, ZM_E_AGAIN when it was dropped (already counted), an error when the link is dead. */
static z_result_t flush_batch(zm_transport_t *t)
{
    if (ZM_TX_BATCHING && t->tx.len == 0) { /* else it holds what was just put in */
        t->tx_frame = -1;
        return Z_OK;
    }
    /* A BLOCK batch may wait for its first byte to leave as long as for the rest. A congested
     * peer had no room a moment ago: wait again only once a batch went through. */
    uint32_t all = t->tx_block_timeout_ms;
    z_result_t rc = write_batch(t, t->tx_block ? all : t->tx_congested ? 0u : ZM_TX_DROP_WAIT_MS, all);
    if (rc == ZM_E_AGAIN) {
        if (!t->tx_block) {
            batch_drop(t);
            return ZM_E_AGAIN;
        }
        batch_reset(t);
        rc = ZM_E_TIMEOUT;
    }
    return rc == Z_OK ? Z_OK : declare_dead(t, rc);
}

/* tx_lock held. Dropping is congestion control doing its job, not an error of the caller. */
static z_result_t flush_locked(zm_transport_t *t)
{
    z_result_t rc = flush_batch(t);
    return rc == ZM_E_AGAIN ? Z_OK : rc;
}

/* What a send carries: a network message m, or, when m is NULL, a put's PUSH p. */
static bool is_block(const zm_network_msg_t *m, const zm_push_ref_t *p)
{
    if (m == NULL) {
        return (p->qos & ZM_QOS_BLOCK) != 0;
    }
    return (m->ext.present & ZM_NET_EXT_QOS) != 0 && (m->ext.qos & ZM_QOS_BLOCK) != 0;
}

static z_result_t encode(zm_writer_t *w, const zm_network_msg_t *m, const zm_push_ref_t *p)
{
    if (Z_FEATURE_PUBLICATION && m == NULL) {
        return ZM_PUT_HEAD && p->body == NULL ? zm_push_head_write(w, p) : zm_push_encode(w, p);
    }
    return zm_network_encode(w, m);
}

static uint8_t wire_prio(const zm_transport_t *t, uint8_t prio) { return t->qos ? (uint8_t)(prio & 7u) : ZM_PRIO_DATA; }

#if ZM_TX_BATCHING
/* tx_lock held. Encodes the header of a FRAME of channel ch into the batch (no struct to fill). */
static z_result_t frame_header(zm_transport_t *t, unsigned ch, bool reliable, uint8_t prio)
{
    uint8_t wp = wire_prio(t, prio);
    bool has_qos = t->qos && wp != ZM_PRIO_DATA;
    if (ZM_ENCODE_FAST && zm_writer_left(&t->tx) >= ZM_FRAME_HEADER_MAX) { /* no count of the SN's bytes first */
        t->tx.len += zm_frame_header_put(t->tx.data + t->tx.len, reliable, t->tx_sn[ch], has_qos, wp);
        return Z_OK;
    }
    return zm_frame_header_encode(&t->tx, reliable, t->tx_sn[ch], has_qos, wp);
}
#endif

#if Z_FEATURE_FRAGMENTATION
/*
 * tx_lock held. Encodes a FRAGMENT with its payload into the batch. Built here, in a frame of its
 * own and without a whole zm_transport_msg_t, the header is off the stack before the batch is
 * flushed, where the deepest stacks of a send go.
 */
static ZM_NOINLINE z_result_t fragment_encode(zm_transport_t *t, bool reliable, uint8_t prio, bool first, bool more,
                                              zm_slice_t payload)
{
    zm_fragment_t f;
    memset(&f, 0, sizeof(f));
    f.reliable = reliable;
    f.sn = t->tx_sn[ZM_CHANNEL(reliable, wire_prio(t, prio))];
    f.has_qos = t->qos && wire_prio(t, prio) != ZM_PRIO_DATA;
    f.qos = wire_prio(t, prio);
    f.first = first;
    f.more = more;
    f.payload = payload;
    return zm_fragment_encode(&t->tx, &f);
}

/* The variable parts of a PUT or DEL but its unknown extensions (a put has none): those its flags
 * say it has (a DEL's payload is empty). */
static size_t put_bound(const zm_put_t *b)
{
    return b->payload.len + ((b->exts & ZM_PUT_EXT_ATTACHMENT) ? b->attachment.len : 0u) +
           (b->has_encoding ? b->encoding.schema.len : 0u);
}

/* Upper bound of an encoded message's size (see is_block): its variable parts plus fixed headroom. */
static size_t size_bound(const zm_network_msg_t *m, const zm_push_ref_t *p)
{
    if (m == NULL) {
        if (ZM_PUT_HEAD && p->body == NULL) { /* a publisher's head and payload */
            return 512 + p->head_len + p->payload.len;
        }
        return 512 + p->wire_expr.suffix.len + put_bound(p->body);
    }
    size_t n = 512 + m->ext.ts_stack.len;
    for (unsigned i = 0; i < m->ext.unknown.n; i++) {
        n += m->ext.unknown.raw[i].len;
    }
    switch (m->id) {
    case ZM_MID_N_PUSH: {
        const zm_push_t *push = &m->body.push;
        n += push->wire_expr.suffix.len + put_bound(&push->body.put);
        for (unsigned i = 0; i < push->body.put.unknown.n; i++) {
            n += push->body.put.unknown.raw[i].len;
        }
        return n;
    }
    case ZM_MID_N_REQUEST: {
        const zm_query_t *q = &m->body.request.query;
        return n + m->body.request.wire_expr.suffix.len + q->parameters.len + q->body_payload.len +
               q->body_encoding.schema.len + q->attachment.len;
    }
    case ZM_MID_N_RESPONSE: {
        const zm_response_t *r = &m->body.response;
        n += r->wire_expr.suffix.len;
        if (r->body_id == ZM_MID_ERR) {
            const zm_err_t *e = &r->body.err;
            return n + e->payload.len + (e->has_encoding ? e->encoding.schema.len : 0u);
        }
        return n + put_bound(&r->body.reply.body.put);
    }
    case ZM_MID_N_INTEREST:
        return n + m->body.interest.wire_expr.suffix.len;
    case ZM_MID_N_DECLARE:
        return n + m->body.declare.decl.wire_expr.suffix.len;
    case ZM_MID_N_OAM:
        return n + m->body.oam.zbuf.len;
    default:
        return n;
    }
}

/* tx_lock held; the batch is empty. Only the first fragment of a DROP message may be dropped
 * (then the whole message is); once it left, the rest follow with BLOCK's patience, as a message
 * cut short would only waste what was sent. */
static z_result_t fragment_locked(zm_transport_t *t, const zm_network_msg_t *m, const zm_push_ref_t *p,
                                  bool reliable, uint8_t prio, bool block)
{
    size_t need = size_bound(m, p);
    if (need > ZM_FRAG_MAX_SIZE) {
        return ZM_E_TOO_LARGE;
    }
    if (t->frag_cap < need) { /* grows to the largest message sent, then is reused */
        uint8_t *grown = zm_alloc(need);
        if (grown == NULL) {
            return ZM_E_NOMEM;
        }
        zm_free(t->frag_buf);
        t->frag_buf = grown;
        t->frag_cap = need;
    }
    uint8_t *buf = t->frag_buf;
    zm_writer_t w;
    zm_writer_init(&w, buf, need);
    z_result_t rc = encode(&w, m, p);
    unsigned ch = ZM_CHANNEL(reliable, wire_prio(t, prio));
    size_t off = 0;
    bool first = true;
    while (rc == Z_OK && off < w.len) {
        bool first_marked = first && t->patch >= 1;
        /* the header's size, then as much payload as fits after it */
        size_t mark = t->tx.len;
        rc = fragment_encode(t, reliable, prio, first_marked, true, zm_slice(NULL, 0));
        if (rc != Z_OK) {
            break;
        }
        size_t room = zm_writer_left(&t->tx);
        t->tx.len = mark;
        size_t chunk = w.len - off < room ? w.len - off : room;
        rc = fragment_encode(t, reliable, prio, first_marked, off + chunk < w.len, zm_slice(buf + off, chunk));
        if (rc == Z_OK) {
            t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
            t->tx_msgs = 1;
            t->tx_block = block || !first;
            off += chunk;
            first = false;
            rc = flush_batch(t);
            if (rc == ZM_E_AGAIN) {
                return Z_OK; /* the first fragment was dropped, and with it the message */
            }
        }
    }
    return rc;
}

#endif /* Z_FEATURE_FRAGMENTATION */

/* tx_lock held; the batch is empty. A message it cannot hold goes out in fragments, or not at all. */
static z_result_t too_large(zm_transport_t *t, const zm_network_msg_t *m, const zm_push_ref_t *p, bool reliable,
                            uint8_t prio, bool block)
{
#if Z_FEATURE_FRAGMENTATION
    return fragment_locked(t, m, p, reliable, prio, block);
#else
    ZM_UNUSED(t);
    ZM_UNUSED(m);
    ZM_UNUSED(p);
    ZM_UNUSED(reliable);
    ZM_UNUSED(prio);
    ZM_UNUSED(block);
    return ZM_E_TOO_LARGE; /* larger than a batch, and no fragmentation: nothing was sent */
#endif
}

/* zm_transport_send of m, or (m NULL) zm_transport_push of p: one path, one lock. */
static z_result_t send_msg(zm_transport_t *t, const zm_network_msg_t *m, const zm_push_ref_t *p, bool reliable,
                           uint8_t prio, bool flush)
{
    if (t->closed) {
        return ZM_E_CLOSED;
    }
    unsigned ch = ZM_CHANNEL(reliable, wire_prio(t, prio));
    bool block = is_block(m, p);
    z_result_t rc = Z_OK;
#if Z_FEATURE_MULTI_THREAD
    /* A DROP message does not wait for tx_lock longer than for room: if the holder has been
     * writing for more than ZM_TX_DROP_WAIT_MS, the peer is not reading and the message goes. */
    uint32_t since = atomic_load_explicit(&t->tx_waiting_since, memory_order_relaxed);
    if (!block && since != 0) {
        uint32_t waited = (uint32_t)zm_port_clock_ms() - since;
        if (waited > ZM_TX_DROP_WAIT_MS && waited < UINT32_MAX / 2u) {
            atomic_fetch_add_explicit(&t->tx_stuck_dropped, 1u, memory_order_relaxed);
            return Z_OK;
        }
    }
#endif
    TX_LOCK(t);
#if ZM_TX_BATCHING
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t mark = t->tx.len;
        bool new_frame = t->tx_frame != (int)ch;
        if (new_frame) {
            rc = frame_header(t, ch, reliable, prio);
        }
        if (rc == Z_OK) {
            rc = encode(&t->tx, m, p);
        }
        if (rc == Z_OK) {
            if (new_frame) {
                t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
                t->tx_frame = (int)ch;
            }
            t->tx_msgs++;
            t->tx_block = t->tx_block || block;
            break;
        }
        t->tx.len = mark;
        if (rc != ZM_E_NO_SPACE) {
            break;
        }
        if (t->tx.len > 0) {
            rc = flush_locked(t); /* make room (sent or dropped), then try once more in an empty batch */
            if (rc != Z_OK) {
                break;
            }
            continue;
        }
        rc = too_large(t, m, p, reliable, prio, block);
        break;
    }
    if (rc == Z_OK && (flush || !t->batching)) {
        rc = flush_locked(t);
    }
#else
    /* The batch is empty (ZM_TX_BATCHING): the message goes out at once, in a FRAME of its own,
     * whose header fits any batch (64 bytes at least, the opener refuses less). */
    ZM_UNUSED(flush);
    ZM_ASSERT(t->tx.len == 0 && t->tx.cap >= ZM_FRAME_HEADER_MAX);
    uint8_t wp = wire_prio(t, prio);
    t->tx.len = zm_frame_header_put(t->tx.data, reliable, t->tx_sn[ch], t->qos && wp != ZM_PRIO_DATA, wp);
    rc = encode(&t->tx, m, p);
    if (rc == Z_OK) {
        t->tx_block = block;
#if ZM_TX_ONE_FRAME
        rc = flush_batch(t);
        if (rc == ZM_E_AGAIN) {
            rc = Z_OK; /* dropped, its SN unused (flush_locked) */
        } else {
            t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
        }
#else
        t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
        rc = flush_locked(t);
#endif
    } else {
        t->tx.len = 0;
        if (rc == ZM_E_NO_SPACE) {
            rc = too_large(t, m, p, reliable, prio, block);
        }
    }
#endif
    TX_UNLOCK(t);
    return rc;
}

z_result_t zm_transport_send(zm_transport_t *t, const zm_network_msg_t *m, bool reliable, uint8_t prio, bool flush)
{
    return send_msg(t, m, NULL, reliable, prio, flush);
}

#if Z_FEATURE_PUBLICATION
z_result_t zm_transport_push(zm_transport_t *t, const zm_push_ref_t *p, bool reliable, uint8_t prio, bool flush)
{
    return send_msg(t, NULL, p, reliable, prio, flush);
}
#endif

z_result_t zm_transport_flush(zm_transport_t *t)
{
    if (!ZM_TX_BATCHING) {
        return Z_OK; /* nothing is left in a batch between sends */
    }
    TX_LOCK(t);
    z_result_t rc = flush_locked(t);
    TX_UNLOCK(t);
    return rc;
}

void zm_transport_set_batching(zm_transport_t *t, bool on)
{
#if ZM_TX_BATCHING
    TX_LOCK(t);
    t->batching = on;
    TX_UNLOCK(t);
#else
    ZM_UNUSED(t);
    ZM_UNUSED(on);
    ZM_ASSERT(!on);
#endif
}

/*
 * Milliseconds from since (the low 32 bits of a clock reading) to now. Another thread may store a
 * reading taken after ours: a difference past half the range is such a "newer than now", i.e. no
 * time at all. Leases are clamped far below 2^31 ms, and the tick comes every fraction of one, so
 * a real silence or congestion never gets that long unnoticed.
 */
static uint32_t elapsed_ms(uint64_t now, uint32_t since)
{
    uint32_t d = (uint32_t)now - since;
    return d > UINT32_MAX / 2u ? 0u : d;
}

z_result_t zm_transport_lease_tick(zm_transport_t *t)
{
    uint64_t now = zm_port_clock_ms();
    if (elapsed_ms(now, zm_transport_heard_ms(t, (uint32_t)now)) > t->remote_lease_ms) {
        return ZM_E_TIMEOUT;
    }
    if (!TX_TRYLOCK(t)) {
        return Z_OK; /* a sender holds the link: traffic flows, or that sender will time out */
    }
    if (t->tx_sent) { /* a batch went since the last look, so not before it: a keep-alive is due no later */
        t->tx_sent = false;
        t->last_tx_ms = t->tx_looked_ms;
    }
    t->tx_looked_ms = (uint32_t)now;
    z_result_t rc = Z_OK;
    if (t->tx_congested && elapsed_ms(now, t->tx_congested_since_ms) > t->remote_lease_ms) {
        /* it keeps its side alive but has had no room for anything of ours for a whole lease */
        ZM_LOG_W("transport: the peer read nothing for longer than its lease (%u ms)", (unsigned)t->remote_lease_ms);
        TX_UNLOCK(t);
        return ZM_E_TIMEOUT; /* the session closes it, as an expired one */
    }
    /* A batch left open by batching mode goes out with the lease; else, if we were idle, a
     * keep-alive (zmote's has no extension), in a batch of its own. */
#if ZM_TX_BATCHING
    bool keep_alive = t->tx.len == 0;
    if (!keep_alive || (elapsed_ms(now, t->last_tx_ms) >= t->lease_ms / ZM_KEEP_ALIVE_DIVISOR &&
                        zm_write_u8(&t->tx, ZM_MID_KEEP_ALIVE) == Z_OK)) {
#else
    const bool keep_alive = true; /* the batch is empty (ZM_TX_BATCHING), and holds a byte */
    if (elapsed_ms(now, t->last_tx_ms) >= t->lease_ms / ZM_KEEP_ALIVE_DIVISOR) {
        t->tx.data[0] = ZM_MID_KEEP_ALIVE;
        t->tx.len = 1;
#endif
        rc = write_batch(t, 0, LEASE_SEND_MS);
        if (rc == ZM_E_AGAIN) {
            /* No room now: the open batch waits for the next tick or the next flush, the keep-alive
             * is skipped (a peer that does not read needs none). */
            if (keep_alive) {
                batch_reset(t);
            }
            rc = Z_OK;
        }
    }
    if (rc != Z_OK) {
        rc = declare_dead(t, rc);
    }
    TX_UNLOCK(t);
    return rc;
}

#if Z_FEATURE_MULTICAST_TRANSPORT
z_result_t zm_transport_join_tick(zm_transport_t *t, zm_transport_msg_t *join)
{
    if (!TX_TRYLOCK(t)) {
        return ZM_E_AGAIN;
    }
    z_result_t rc = Z_OK;
    if (t->tx.len > 0) {
        /* the open batch first, or never: the JOIN names the SNs that follow it */
        rc = write_batch(t, 0, LEASE_SEND_MS);
        if (rc == ZM_E_AGAIN) {
            batch_drop(t);
            rc = Z_OK;
        }
    }
    if (rc == Z_OK && join != NULL) {
        join->body.join.next_sn_reliable = t->tx_sn[ZM_CHANNEL(true, ZM_PRIO_DATA)];
        join->body.join.next_sn_best_effort = t->tx_sn[ZM_CHANNEL(false, ZM_PRIO_DATA)];
        if (zm_transport_encode(&t->tx, join) == Z_OK) {
            rc = write_batch(t, 0, LEASE_SEND_MS);
            if (rc == ZM_E_AGAIN) {
                batch_reset(t); /* no room now: the next tick sends one */
                rc = Z_OK;
            }
        }
    }
    if (rc != Z_OK) {
        rc = declare_dead(t, rc);
    }
    TX_UNLOCK(t);
    return rc;
}
#endif
