/*
 * A session's memory account: the bytes it holds on behalf of its remote peers, by kind and in
 * all, each within its bound of opt.h. Everything a peer can make a session keep is charged here
 * when it is kept and refunded when it goes: a peer's declarations and tokens (session/remote.c:
 * refunded one by one as they are undeclared, the rest when the peer is gone), reassembly buffers
 * (transport/defrag.c: refunded when a message is delivered, dropped, silent for a lease, or its
 * peer gone) and the replies a get keeps for consolidation (session/query.c: refunded as they
 * are replaced or handed over, the rest when the get ends). Interests hold nothing: they are
 * answered at once. A charge that does not fit is refused whole, and its caller refuses what
 * brought it as its own per-peer bound would (a peer's declaration closes its link, a router's is
 * ignored, a fragmented message or a kept reply is dropped or given at once, with a log line).
 * Once the session has no peer and no get, the account is back at zero (asserted at close).
 *
 * Threads: any thread charges and refunds (readers of several peers at once); each figure is an
 * atomic, and a charge takes its kind's room and then the total's, giving the first back when the
 * second refuses, so that no figure ever passes its bound.
 */
#ifndef ZM_TRANSPORT_ACCOUNT_H
#define ZM_TRANSPORT_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/atomic.h"
#include "util/common.h"

/* The kinds, each with its bound: ZM_SESSION_DECL_BYTES_MAX, ZM_FRAG_BYTES_MAX, ZM_GETS_KEPT_BYTES. */
enum { ZM_HELD_DECLS, ZM_HELD_FRAGS, ZM_HELD_REPLIES, ZM_HELD_KINDS };

typedef struct {
    ZM_ATOMIC(size_t) held[ZM_HELD_KINDS];
    ZM_ATOMIC(size_t) total; /* within ZM_SESSION_BYTES_MAX */
} zm_account_t;

/** Charges n bytes of kind: false, and nothing charged, when the kind or the total would pass its bound. */
ZM_NODISCARD bool zm_account_charge(zm_account_t *a, unsigned kind, size_t n);
/** Gives back n bytes of kind, charged before. */
void zm_account_refund(zm_account_t *a, unsigned kind, size_t n);
/** The bytes held of kind, or in all with ZM_HELD_KINDS (the tests read it). */
size_t zm_account_held(zm_account_t *a, unsigned kind);

#endif /* ZM_TRANSPORT_ACCOUNT_H */
