/*
 * What the two handshake roles share inside the transport layer: unicast.c runs the opener and
 * owns the transport's life cycle, accept.c runs the acceptor. Both build the same messages and
 * set up an established transport the same way, through these; nothing outside src/transport
 * includes this header.
 */
#ifndef ZM_TRANSPORT_INTERNAL_H
#define ZM_TRANSPORT_INTERNAL_H

#include <string.h>

#include "transport/transport.h"
#include "util/alloc.h"

static inline uint16_t zm_min_u16(uint16_t a, uint16_t b) { return a < b ? a : b; }

/* Per-field minimum of two resolution bytes (fsn in bits 0-1, request id in bits 2-3), which the
 * acceptor answers with (the opener only checks an answer, with a mask of its own). Inline: a few
 * instructions. */
static inline uint8_t zm_transport_resolution_min(uint8_t a, uint8_t b)
{
    uint8_t fsn = (uint8_t)((a & 3u) < (b & 3u) ? (a & 3u) : (b & 3u));
    uint8_t rid = (uint8_t)((a & 0xcu) < (b & 0xcu) ? (a & 0xcu) : (b & 0xcu));
    return (uint8_t)(fsn | rid);
}

/* How long a CLOSE or an acceptor's answer may take once its first byte left (none waits for the
 * first): a peer that stopped reading must not hold the closer or the acceptor's other newcomers. */
#define ZM_TRANSPORT_CLOSE_SEND_MS 100u

/*
 * The pieces below serve the opener (unicast.c), the acceptor (accept.c) and a multicast group
 * (multicast.c), the same way in every build: inline here, each file with its own copy, so that
 * the opener, which calls each of them once (and in a client-only build is their only user), has
 * them in its own body. The CLOSE, which a transport's close sends too, is unicast.c's.
 */

/** The largest batch announced on link: ours (p->batch_size), no more than the link's MTU. */
static inline uint16_t zm_transport_batch_cap(const zm_link_t *link, const zm_transport_params_t *p)
{
    return zm_min_u16(p->batch_size, zm_link_mtu(link));
}

/* A lease as an OPEN or a JOIN announces it: in seconds when whole (*secs, the T flag), as Rust
 * announces, else milliseconds. */
static inline uint32_t zm_transport_lease_wire(uint32_t lease_ms, bool *secs)
{
    *secs = lease_ms % 1000u == 0;
    return *secs ? lease_ms / 1000u : lease_ms;
}

/* The lease an OPEN announces, in milliseconds, clamped to ZM_LEASE_MAX_MS: a peer announcing
 * years (or 2^32 s) would otherwise never expire, and silences are measured on a 32-bit clock.
 * Within 32 bits once clamped: opt.h bounds ZM_LEASE_MAX_MS below 2^31. */
static inline uint32_t zm_transport_open_lease_ms(const zm_open_t *o)
{
    if (o->lease_secs) {
        return o->lease > ZM_LEASE_MAX_MS / 1000u ? ZM_LEASE_MAX_MS : (uint32_t)o->lease * 1000u;
    }
    return o->lease > ZM_LEASE_MAX_MS ? ZM_LEASE_MAX_MS : (uint32_t)o->lease;
}

/* A random SN within mask. */
static inline uint32_t zm_transport_random_sn(uint32_t mask)
{
    uint32_t v;
    zm_port_random(&v, sizeof(v));
    return v & mask;
}

/* Starts every channel's SNs: ours at tx_initial, the first accepted from the peer rx_initial. */
static inline void zm_transport_sn_start(zm_transport_t *t, uint32_t tx_initial, uint32_t rx_initial)
{
    for (unsigned i = 0; i < ZM_TX_CHANNELS; i++) {
        t->tx_sn[i] = tx_initial;
#if !ZM_TX_ONE_FRAME
        t->tx_sn_sent[i] = tx_initial;
#endif
        t->rx_sn[i] = (rx_initial - 1u) & t->sn_mask; /* the first accepted FRAME is rx_initial */
    }
}

/* Last step of an established transport: its tx lock and clocks. Nothing to undo on error. */
static inline ZM_NODISCARD z_result_t zm_transport_finish(zm_transport_t *t)
{
    ZM_IF_THREADS(ZM_TRY(zm_port_mutex_init(&t->tx_lock));)
    uint64_t now = zm_port_clock_ms();
    zm_atomic_store_relaxed(&t->last_rx_ms, (uint32_t)now);
    t->last_tx_ms = (uint32_t)now;
    t->tx_looked_ms = (uint32_t)now;
    return Z_OK;
}

/* Sends CLOSE(reason), of the session when session is set (the S flag), best effort and without
 * waiting for room: the link is closed next anyway. */
void zm_transport_send_close(zm_link_t *link, bool session, uint8_t reason);

/* Takes link into t (memset first), without buffers. */
static inline void zm_transport_init(zm_transport_t *t, const zm_link_t *link, const zm_transport_params_t *p)
{
    memset(t, 0, sizeof(*t));
    zm_atomic_init(&t->last_rx_ms, 0u);
    zm_atomic_init(&t->rx_heard, false);
    ZM_IF_THREADS(
        atomic_init(&t->closed, false);
        atomic_init(&t->tx_stuck_dropped, 0u);
        atomic_init(&t->tx_waiting_since, 0u);
    )
    t->link = *link;
    t->lease_ms = p->lease_ms;
    if (ZM_TX_BATCHING) {
        t->tx_frame = -1;
    }
    t->tx_block_timeout_ms = ZM_TX_BLOCK_TIMEOUT_MS;
}

/* Allocates t's receive buffer, of cap bytes. */
static inline ZM_NODISCARD z_result_t zm_transport_rx_alloc(zm_transport_t *t, size_t cap)
{
    t->rx_cap = cap;
    t->rx_buf = zm_alloc(cap);
    return t->rx_buf != NULL ? Z_OK : ZM_E_NOMEM;
}

/*
 * Takes link into t (memset first) and allocates the rx buffer for the largest batch the link
 * may negotiate; the link's buffered bytes are not moved, the caller rebuffers if it needs to.
 * On ZM_E_NOMEM nothing is held.
 */
static inline ZM_NODISCARD z_result_t zm_transport_setup(zm_transport_t *t, const zm_link_t *link,
                                                         const zm_transport_params_t *p)
{
    zm_transport_init(t, link, p);
    /* no batch beyond the link's MTU is ever negotiated (zm_transport_batch_cap) */
    return zm_transport_rx_alloc(t, (size_t)zm_transport_batch_cap(link, p) + ZM_LINK_HEADROOM);
}

/* Allocates the tx buffer for the negotiated batch size. */
static inline ZM_NODISCARD z_result_t zm_transport_tx_alloc(zm_transport_t *t, uint16_t batch_size)
{
    t->batch_size = batch_size;
    t->tx_buf = zm_alloc((size_t)batch_size + ZM_LINK_HEADROOM);
    if (t->tx_buf == NULL) {
        return ZM_E_NOMEM;
    }
    /* a stream link counts its 2-byte prefix inside the batch (spec 3) */
    size_t cap = zm_link_is_streamed(&t->link) ? (size_t)batch_size - ZM_LINK_HEADROOM : batch_size;
    zm_writer_init(&t->tx, t->tx_buf + ZM_LINK_HEADROOM, cap);
    return Z_OK;
}

/* Frees what setup and tx_alloc allocated (not the lock, not the link). */
static inline void zm_transport_drop_buffers(zm_transport_t *t)
{
    zm_free(t->tx_buf);
    zm_free(t->rx_buf);
    t->tx_buf = NULL;
    t->rx_buf = NULL;
}

#if Z_FEATURE_FRAGMENTATION
/* Reassembly (defrag.c), within t->share's account. Frees t's: its buffers leave the budgets. */
void zm_transport_defrag_free(zm_transport_t *t);
/* The slot of a fragment's channel, allocating t's slots at its first fragment (NULL: no memory). */
zm_defrag_t *zm_defrag_slot(zm_transport_t *t, bool reliable, uint8_t prio);
/* Adds part to d's message (a slot of t) within the budgets; more: fragments follow. Errors: the
 * message does not fit (it is to be dropped). The last fragment leaves d busy until zm_defrag_done. */
ZM_NODISCARD z_result_t zm_defrag_append(zm_transport_t *t, zm_defrag_t *d, zm_slice_t part, bool more);
/* d's message delivered: d is free again, its buffer kept unless larger than a batch. */
void zm_defrag_done(zm_transport_t *t, zm_defrag_t *d);
/* Frees the reassemblies of t that heard nothing for a lease; looks at most every quarter lease
 * (the receiver asks at its first batch after each look of the lease, zm_transport_heard_ms). */
void zm_defrag_sweep(zm_transport_t *t, uint32_t now);
/* Drops the message collected in d, keeping its buffer for the next one. */
static inline void zm_defrag_reset(zm_defrag_t *d, bool skip)
{
    d->active = false;
    d->skip = skip;
    d->len = 0;
}
#endif

#if Z_FEATURE_MULTICAST_TRANSPORT
/*
 * A group's tick (tx.c): writes out the batch left open, then join (a JOIN message whose next
 * SNs are filled here, under the lock) alone in a batch, unless join is NULL. ZM_E_AGAIN, nothing
 * done, while a sender holds t; another error when the link failed (it is shut down).
 */
ZM_NODISCARD z_result_t zm_transport_join_tick(zm_transport_t *t, zm_transport_msg_t *join);
#endif

#endif /* ZM_TRANSPORT_INTERNAL_H */
