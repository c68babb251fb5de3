/*
 * What the two handshake roles share inside the transport layer: unicast.c runs the opener and
 * owns the transport's life cycle, accept.c runs the acceptor. Both build the same messages and
 * set up an established transport the same way, through these; nothing outside src/transport
 * includes this header.
 */
#ifndef ZM_TRANSPORT_INTERNAL_H
#define ZM_TRANSPORT_INTERNAL_H

#include "transport/transport.h"

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
 * The helpers below serve the opener (unicast.c) and, where they are built, the acceptor
 * (accept.c) and a multicast group (multicast.c). A client-only build has the opener alone: they
 * are file-local to unicast.c then, so that the compiler inlines those it calls once.
 */
#if ZM_TRANSPORT_SHARED
/* An INIT announcing p, with the given resolution and batch size (the S flag set if needed). */
void zm_transport_init_fill(zm_init_t *init, const zm_transport_params_t *p, uint8_t resolution,
                            uint16_t batch);
/* A lease as an OPEN announces it: in seconds when whole (*secs, the T flag), else milliseconds. */
uint32_t zm_transport_lease_wire(uint32_t lease_ms, bool *secs);
/* An OPEN with our lease (in seconds when whole) and initial SN. */
void zm_transport_open_fill(zm_open_t *open, uint32_t lease_ms, uint32_t initial_sn);
/* The lease an OPEN announces, in milliseconds, clamped to ZM_LEASE_MAX_MS: a peer announcing
 * years (or 2^32 s) would otherwise never expire, and silences are measured on a 32-bit clock. */
uint32_t zm_transport_open_lease_ms(const zm_open_t *o);
/* A random SN within mask. */
uint32_t zm_transport_random_sn(uint32_t mask);

/*
 * Sends one handshake message or CLOSE alone in its batch, through a small stack buffer, within
 * the link deadlines start and end (see zm_link_send_batch); nothing sent by start is
 * ZM_E_TIMEOUT: the deadline is spent.
 */
ZM_NODISCARD z_result_t zm_transport_send_one(zm_link_t *link, const zm_transport_msg_t *m, uint64_t start,
                                              uint64_t end);
/* zm_transport_send_one through the caller's buffer of cap bytes (ZM_LINK_HEADROOM included), for
 * a message known to be small: ZM_E_NO_SPACE, nothing sent, if it does not fit. */
ZM_NODISCARD z_result_t zm_transport_send_in(zm_link_t *link, const zm_transport_msg_t *m, uint8_t *buf, size_t cap,
                                             uint64_t start, uint64_t end);
/* Sends CLOSE(reason), best effort and without waiting for room: the link is closed next anyway. */
void zm_transport_send_close(zm_link_t *link, uint8_t reason);

/*
 * Takes link into t (memset first) and allocates the rx buffer; the link's buffered bytes are
 * not moved, the caller rebuffers if it needs to. On ZM_E_NOMEM nothing is held.
 */
ZM_NODISCARD z_result_t zm_transport_setup(zm_transport_t *t, const zm_link_t *link,
                                           const zm_transport_params_t *p);
/* Allocates the tx buffer for the negotiated batch size. */
ZM_NODISCARD z_result_t zm_transport_tx_alloc(zm_transport_t *t, uint16_t batch_size);

/** The largest batch announced on link: ours (p->batch_size), no more than the link's MTU. */
uint16_t zm_transport_batch_cap(const zm_link_t *link, const zm_transport_params_t *p);
/* Starts every channel's SNs: ours at tx_initial, the first accepted from the peer rx_initial. */
void zm_transport_sn_start(zm_transport_t *t, uint32_t tx_initial, uint32_t rx_initial);
/* Last step of an established transport: its tx lock and clocks. Nothing to undo on error. */
ZM_NODISCARD z_result_t zm_transport_finish(zm_transport_t *t);
/* Frees what setup and tx_alloc allocated (not the lock, not the link). */
void zm_transport_drop_buffers(zm_transport_t *t);
#endif /* ZM_TRANSPORT_SHARED */

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
/* Frees the reassemblies of t that heard nothing for a lease; looks at most every quarter lease. */
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
