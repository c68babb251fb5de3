/*
 * Connectivity (Z_FEATURE_CONNECTIVITY): the session's transports as the API tells them, one per
 * live peer (a unicast peer, or a member of the multicast group), each with its one link, and the
 * listeners told when one opens (up) or closes (down: closed, lost, expired, evicted).
 *
 * The feature answers the hub's tick (and close, which ends its listeners): each tick compares the peer table with the
 * transports its listeners were last told of (a slot whose peer is gone, or was replaced, is
 * told down; a new live one, up), so that opening, closing, expiry and reconnection are seen
 * alike, and told on the thread that runs the tick (the worker, or the application that drives
 * the session), or by a thread declaring a listener, which brings the record up to date first;
 * never on the lease task nor the accept task. Each change has a sequence number;
 * a listener is told the changes numbered after its declaration, and with history the
 * transports told up before it, so that it sees every transport once up and once down.
 */
#ifndef ZM_SESSION_CONNECTIVITY_H
#define ZM_SESSION_CONNECTIVITY_H

#include "session/session.h"
#include "zmote/port.h" /* zm_thread_id_t */

#if Z_FEATURE_CONNECTIVITY

/* Room for a link's locator, `tcp/[ffff:...:ffff%iface]:65535`, NUL included. */
#define ZM_CONN_LOCATOR_MAX 64u

/** A transport and its link, copied out of the peer table (borrowed by callbacks). */
typedef struct {
    zm_zid_t zid;
    uint8_t whatami; /* zm_whatami_t */
    bool qos;
    bool multicast;
    bool streamed;
    bool reliable;
    uint16_t mtu;
    char src[ZM_CONN_LOCATOR_MAX]; /* the link's local locator, "" when the port cannot tell */
    char dst[ZM_CONN_LOCATOR_MAX]; /* its remote one, likewise */
} zm_conn_t;

/**
 * Told a transport that opened (up) or closed (link false), or its link (link true); c borrows
 * for the call. Each change is told twice: the transport then its link when up, the link then
 * its transport when down.
 */
typedef void (*zm_conn_fn)(const zm_conn_t *c, bool up, bool link, void *ctx);

/** The transports of s now: fn(c, true, link, ctx) runs for each (link false) and its link (link
 *  true) on the calling thread, without the session lock. */
ZM_NODISCARD z_result_t zm_session_conn_list(zm_session_t *s, zm_conn_fn fn, void *ctx);

/**
 * A listener of transports opening and closing: fn(c, up, link, ctx) for each change from now
 * on, on the thread that runs the hub's tick; with history, first fn(c, true, link, ctx) for each
 * transport open now and its link, on the calling thread. drop(ctx) once when it ends (undeclared, or the session closed).
 */
ZM_NODISCARD z_result_t zm_session_declare_conn_listener(zm_session_t *s, bool history, zm_conn_fn fn,
                                                         zm_drop_fn drop, void *ctx, uint32_t *id);
/** Ends listener id as zm_session_undeclare_subscriber ends a subscriber. */
ZM_NODISCARD z_result_t zm_session_undeclare_conn_listener(zm_session_t *s, uint32_t id);

/* The session's record of what its listeners were told: one slot per peer slot. */
typedef struct {
    bool known;   /* told up, not yet down */
    uint32_t gen; /* the peer slot's generation then */
    zm_conn_t c;
} zm_conn_slot_t;

typedef struct {
    zm_conn_slot_t slots[ZM_PEER_SLOTS];
    uint32_t seq;         /* changes told so far */
    bool syncing;         /* a thread changes the slots or tells a history: nobody else does */
    zm_thread_id_t owner; /* that thread */
} zm_conn_state_t;

#endif /* Z_FEATURE_CONNECTIVITY */

#endif /* ZM_SESSION_CONNECTIVITY_H */
