/*
 * Receiving: one batch at a time from the link, FRAMEs checked against their channel's SN and
 * their network messages handed to the session in place (no copy), FRAGMENTs reassembled into a
 * per-reliability buffer that grows once and is reused. Anything malformed is an error: the
 * caller closes the link, as Rust does (spec 3).
 */
#include <string.h>

#include "transport/transport.h"
#include "util/alloc.h"

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
static z_result_t defrag_append(zm_defrag_t *d, zm_slice_t part)
{
    size_t need = d->len + part.len;
    if (need > ZM_FRAG_MAX_SIZE) {
        return ZM_E_NO_SPACE;
    }
    if (need > d->cap) {
        size_t cap = d->cap ? d->cap : 4096u;
        while (cap < need) {
            cap *= 2u;
        }
        if (cap > ZM_FRAG_MAX_SIZE) {
            cap = ZM_FRAG_MAX_SIZE;
        }
        uint8_t *grown = zm_alloc(cap);
        if (grown == NULL) {
            return ZM_E_NOMEM;
        }
        if (d->len > 0) {
            memcpy(grown, d->buf, d->len);
        }
        zm_free(d->buf);
        d->buf = grown;
        d->cap = cap;
    }
    memcpy(d->buf + d->len, part.ptr, part.len);
    d->len = need;
    return Z_OK;
}

static z_result_t on_fragment(zm_transport_t *t, const zm_fragment_t *f)
{
    uint8_t prio = f->has_qos ? (uint8_t)(f->qos & 7u) : ZM_PRIO_DATA;
    if (!t->qos && prio != ZM_PRIO_DATA) {
        return ZM_E_FIELD;
    }
    zm_defrag_t *d = &t->defrag[f->reliable ? 1 : 0];
    unsigned ch = ZM_CHANNEL(f->reliable, prio);
    if (!sn_accept(t, ch, f->sn)) {
        d->active = false; /* a duplicate or a reordering: what was collected is lost */
        return Z_OK;
    }
    if (t->patch >= 1) {
        if (f->first) {
            d->active = true;
            d->len = 0;
        }
        if (f->drop) {
            d->active = false;
            return Z_OK;
        }
    } else if (!d->active) {
        d->active = true;
        d->len = 0;
    }
    if (!d->active) {
        return Z_OK; /* joined in the middle of a message */
    }
    if (d->len > 0 && (f->sn != ((d->sn + 1u) & t->sn_mask) || prio != d->prio)) {
        d->active = false; /* a fragment went missing */
        return Z_OK;
    }
    d->sn = f->sn;
    d->prio = prio;
    z_result_t rc = defrag_append(d, f->payload);
    if (rc != Z_OK) {
        d->active = false;
        return rc == ZM_E_NO_SPACE ? Z_OK : rc; /* too large: dropped, as Rust does */
    }
    if (f->more) {
        return Z_OK;
    }
    d->active = false;
    zm_reader_t r;
    zm_network_msg_t m;
    zm_reader_init(&r, d->buf, d->len);
    ZM_TRY(zm_network_decode(&r, &m));
    if (zm_reader_left(&r) != 0) {
        return ZM_E_TRAILING;
    }
    t->on_message(t->ctx, t, &m, f->reliable);
    return Z_OK;
}
#endif

/* Dispatches one whole batch. */
static z_result_t on_batch(zm_transport_t *t, zm_slice_t batch)
{
    atomic_store_explicit(&t->last_rx_ms, (uint32_t)zm_port_clock_ms(), memory_order_relaxed);
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, batch.ptr, batch.len, t->sn_mask);
    for (;;) {
        zm_transport_msg_t m;
        bool got;
        ZM_TRY(zm_batch_next(&it, &m, &got));
        if (!got) {
            return Z_OK;
        }
        switch (m.id) {
        case ZM_MID_FRAME: {
            const zm_frame_t *f = &m.body.frame;
            uint8_t prio = f->has_qos ? (uint8_t)(f->qos & 7u) : ZM_PRIO_DATA;
            if (!t->qos && prio != ZM_PRIO_DATA) {
                return ZM_E_FIELD;
            }
            bool deliver = sn_accept(t, ZM_CHANNEL(f->reliable, prio), f->sn);
            zm_network_msg_t n;
            for (;;) {
                ZM_TRY(zm_batch_next_network(&it, &n, &got));
                if (!got) {
                    break;
                }
                if (deliver) {
                    t->on_message(t->ctx, t, &n, f->reliable);
                }
            }
            break;
        }
        case ZM_MID_FRAGMENT:
#if Z_FEATURE_FRAGMENTATION
            ZM_TRY(on_fragment(t, &m.body.fragment));
#endif
            break; /* without reassembly, a fragmented message is dropped: its SNs are skipped */
        case ZM_MID_KEEP_ALIVE:
        case ZM_MID_T_OAM:
            break;
        case ZM_MID_CLOSE:
            return ZM_E_CLOSED;
        default:
            return ZM_E_FIELD; /* INIT, OPEN or JOIN on an established unicast link */
        }
    }
}

z_result_t zm_transport_read_once(zm_transport_t *t)
{
    zm_slice_t batch;
    ZM_TRY(zm_link_recv_batch(&t->link, t->rx_buf, t->rx_cap, &batch));
    return on_batch(t, batch);
}

z_result_t zm_transport_try_read_once(zm_transport_t *t)
{
    zm_slice_t batch;
    ZM_TRY(zm_link_try_recv_batch(&t->link, t->rx_buf, t->rx_cap, &batch));
    return on_batch(t, batch);
}
