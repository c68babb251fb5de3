/*
 * Sending: network messages are appended to the open FRAME of their channel in the current
 * batch; a batch goes out when it is full, when the caller flushes, or at once when batching is
 * off. A message too large for an empty batch is encoded whole into a reusable buffer and cut
 * into FRAGMENTs, each alone in its batch, as Rust expects (spec 5.6).
 */
#include <string.h>

#include "transport/transport.h"
#include "util/alloc.h"

#if Z_FEATURE_MULTI_THREAD
#define TX_LOCK(t) zm_port_mutex_lock(&(t)->tx_lock)
#define TX_UNLOCK(t) zm_port_mutex_unlock(&(t)->tx_lock)
#else
#define TX_LOCK(t) ((void)0)
#define TX_UNLOCK(t) ((void)0)
#endif

/* tx_lock held */
static z_result_t flush_locked(zm_transport_t *t)
{
    t->tx_frame = -1;
    if (t->tx.len == 0) {
        return Z_OK;
    }
    size_t len = t->tx.len;
    t->tx.len = 0;
    t->last_tx_ms = zm_port_clock_ms();
    return zm_link_send_batch(&t->link, t->tx_buf + ZM_LINK_HEADROOM, len);
}

static uint8_t wire_prio(const zm_transport_t *t, uint8_t prio) { return t->qos ? (uint8_t)(prio & 7u) : ZM_PRIO_DATA; }

/* Upper bound of a network message's encoded size: its variable parts plus fixed headroom. */
static size_t size_bound(const zm_network_msg_t *m)
{
    size_t n = 512 + m->ext.ts_stack.len;
    for (unsigned i = 0; i < m->ext.unknown.n; i++) {
        n += m->ext.unknown.raw[i].len;
    }
    switch (m->id) {
    case ZM_MID_N_PUSH: {
        const zm_push_t *p = &m->body.push;
        n += p->wire_expr.suffix.len;
        if (p->body_id == ZM_MID_PUT) {
            n += p->body.put.payload.len + p->body.put.attachment.len + p->body.put.encoding.schema.len;
            for (unsigned i = 0; i < p->body.put.unknown.n; i++) {
                n += p->body.put.unknown.raw[i].len;
            }
        } else {
            n += p->body.del.attachment.len;
            for (unsigned i = 0; i < p->body.del.unknown.n; i++) {
                n += p->body.del.unknown.raw[i].len;
            }
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
            return n + r->body.err.payload.len + r->body.err.encoding.schema.len;
        }
        const zm_reply_t *rep = &r->body.reply;
        if (rep->body_id == ZM_MID_PUT) {
            return n + rep->body.put.payload.len + rep->body.put.attachment.len + rep->body.put.encoding.schema.len;
        }
        return n + rep->body.del.attachment.len;
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

/* tx_lock held; the batch is empty. */
static z_result_t fragment_locked(zm_transport_t *t, const zm_network_msg_t *m, bool reliable, uint8_t prio)
{
    size_t need = size_bound(m);
    if (need > ZM_FRAG_MAX_SIZE) {
        return Z_EINVAL;
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
    z_result_t rc = zm_network_encode(&w, m);
    unsigned ch = ZM_CHANNEL(reliable, wire_prio(t, prio));
    size_t off = 0;
    bool first = true;
    while (rc == Z_OK && off < w.len) {
        zm_transport_msg_t f;
        memset(&f, 0, sizeof(f));
        f.id = ZM_MID_FRAGMENT;
        f.body.fragment.reliable = reliable;
        f.body.fragment.sn = t->tx_sn[ch];
        f.body.fragment.has_qos = t->qos && wire_prio(t, prio) != ZM_PRIO_DATA;
        f.body.fragment.qos = wire_prio(t, prio);
        f.body.fragment.first = first && t->patch >= 1;
        f.body.fragment.more = true;
        /* the header's size, then as much payload as fits after it */
        size_t mark = t->tx.len;
        rc = zm_transport_encode(&t->tx, &f);
        if (rc != Z_OK) {
            break;
        }
        size_t room = zm_writer_left(&t->tx);
        t->tx.len = mark;
        size_t chunk = w.len - off < room ? w.len - off : room;
        f.body.fragment.more = off + chunk < w.len;
        f.body.fragment.payload = zm_slice(buf + off, chunk);
        rc = zm_transport_encode(&t->tx, &f);
        if (rc == Z_OK) {
            t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
            off += chunk;
            first = false;
            rc = flush_locked(t);
        }
    }
    return rc;
}

z_result_t zm_transport_send(zm_transport_t *t, const zm_network_msg_t *m, bool reliable, uint8_t prio, bool flush)
{
    if (t->closed) {
        return ZM_E_CLOSED;
    }
    unsigned ch = ZM_CHANNEL(reliable, wire_prio(t, prio));
    z_result_t rc = Z_OK;
    TX_LOCK(t);
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t mark = t->tx.len;
        bool new_frame = t->tx_frame != (int)ch;
        if (new_frame) {
            zm_transport_msg_t f;
            memset(&f, 0, sizeof(f));
            f.id = ZM_MID_FRAME;
            f.body.frame.reliable = reliable;
            f.body.frame.sn = t->tx_sn[ch];
            f.body.frame.has_qos = t->qos && wire_prio(t, prio) != ZM_PRIO_DATA;
            f.body.frame.qos = wire_prio(t, prio);
            rc = zm_transport_encode(&t->tx, &f);
        }
        if (rc == Z_OK) {
            rc = zm_network_encode(&t->tx, m);
        }
        if (rc == Z_OK) {
            if (new_frame) {
                t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
                t->tx_frame = (int)ch;
            }
            break;
        }
        t->tx.len = mark;
        if (rc != ZM_E_NO_SPACE) {
            break;
        }
        if (t->tx.len > 0) {
            rc = flush_locked(t); /* make room, then try once more in an empty batch */
            if (rc != Z_OK) {
                break;
            }
            continue;
        }
        rc = fragment_locked(t, m, reliable, prio);
        break;
    }
    if (rc == Z_OK && (flush || !t->batching)) {
        rc = flush_locked(t);
    }
    TX_UNLOCK(t);
    return rc;
}

z_result_t zm_transport_flush(zm_transport_t *t)
{
    TX_LOCK(t);
    z_result_t rc = flush_locked(t);
    TX_UNLOCK(t);
    return rc;
}

void zm_transport_set_batching(zm_transport_t *t, bool on)
{
    TX_LOCK(t);
    t->batching = on;
    TX_UNLOCK(t);
}

z_result_t zm_transport_lease_tick(zm_transport_t *t, uint64_t now_ms)
{
    uint32_t silent = (uint32_t)now_ms - atomic_load_explicit(&t->last_rx_ms, memory_order_relaxed);
    if (silent > t->remote_lease_ms) {
        return ZM_E_TIMEOUT;
    }
    z_result_t rc = Z_OK;
    TX_LOCK(t);
    if (t->tx.len > 0) {
        rc = flush_locked(t); /* a batch left open by batching mode goes out with the lease */
    } else if (now_ms - t->last_tx_ms >= t->lease_ms / ZM_KEEP_ALIVE_DIVISOR) {
        zm_transport_msg_t ka;
        memset(&ka, 0, sizeof(ka));
        ka.id = ZM_MID_KEEP_ALIVE;
        rc = zm_transport_encode(&t->tx, &ka);
        if (rc == Z_OK) {
            rc = flush_locked(t);
        }
    }
    TX_UNLOCK(t);
    return rc;
}
