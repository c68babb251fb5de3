/*
 * Our subscribers: declared to every peer when made (unless session-local) and again to each new
 * peer, answered to a peer's INTEREST, and the dispatch of samples, received or our own, to the
 * ones whose key intersects theirs.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

#if Z_FEATURE_SUBSCRIPTION

#if ZM_PUSH_DECLS
/* Our subscribers to a new peer, each pinned like a callback while it is sent without the lock. */
z_result_t zm_subscribers_push(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = Z_OK;
    S_LOCK(s);
    zm_entity_t *sub = s->subs;
    while (sub != NULL && rc == Z_OK) {
        if (sub->removed || sub->origin == ZM_LOCALITY_SESSION_LOCAL) {
            sub = sub->next;
            continue;
        }
        sub->busy++;
        S_UNLOCK(s);
        zm_declaration_t d;
        zm_decl_fill(&d, ZM_DECL_SUBSCRIBER, sub->id, sub->key, sub->key_len);
        rc = zm_decl_send(p, &d, false);
        S_LOCK(s);
        sub = zm_entity_unpin(s, &s->subs, sub);
    }
    S_UNLOCK(s);
    return rc;
}
#endif

void zm_subscribers_interest(zm_peer_t *p, uint8_t options, const char *rkey, size_t rlen, zm_network_msg_t *m)
{
    if ((options & ZM_INTEREST_S) == 0) {
        return;
    }
    zm_session_t *s = p->s;
    /* each subscriber is pinned like a callback while its declaration is sent unlocked */
    S_LOCK(s);
    zm_entity_t *sub = s->subs;
    while (sub != NULL) {
        if (sub->removed || sub->origin == ZM_LOCALITY_SESSION_LOCAL ||
            (rkey != NULL && !zm_keyexpr_intersects(sub->key, sub->key_len, rkey, rlen))) {
            sub = sub->next;
            continue;
        }
        sub->busy++;
        S_UNLOCK(s);
        zm_decl_fill(&m->body.declare.decl, ZM_DECL_SUBSCRIBER, sub->id, sub->key, sub->key_len);
        zm_peer_send(p, m, ZM_PRIO_CONTROL, false);
        S_LOCK(s);
        sub = zm_entity_unpin(s, &s->subs, sub);
    }
    S_UNLOCK(s);
}

z_result_t zm_session_declare_subscriber(zm_session_t *s, const char *key, size_t len, uint8_t origin,
                                         zm_sample_fn fn, zm_drop_fn drop, void *ctx, uint32_t *id)
{
    ZM_TRY(zm_keyexpr_validate(key, len));
    ZM_ASSERT(fn != NULL && origin <= ZM_LOCALITY_REMOTE); /* the API checked the user's closure and options */
    zm_entity_t *sub = zm_entity_new(key, len);
    if (sub == NULL) {
        return ZM_E_NOMEM;
    }
    sub->origin = origin;
    sub->fn = fn;
    sub->drop = drop;
    sub->ctx = ctx;
    *id = zm_entity_add(s, &s->subs, sub);
    ZM_IF_LOCAL_SUB(zm_atomic_inc_relaxed(&s->subs_declared);)
    if (origin != ZM_LOCALITY_SESSION_LOCAL) {
        zm_decl_broadcast(s, ZM_DECL_SUBSCRIBER, *id, key, len, 0);
    }
    zm_hub_changed(s); /* our publishers may match it */
    return Z_OK;
}

z_result_t zm_session_undeclare_subscriber(zm_session_t *s, uint32_t id)
{
    bool remote;
    ZM_TRY(zm_entity_remove(s, &s->subs, id, &remote));
    ZM_IF_LOCAL_SUB(zm_atomic_dec(&s->subs_declared);)
    if (remote) {
        zm_decl_broadcast(s, ZM_UNDECL_SUBSCRIBER, id, NULL, 0, 0);
    }
    zm_hub_changed(s);
    return Z_OK;
}

/* Subscribers one pass over the list pins, under one lock; more matching ones wait for the next pass. */
#define DISPATCH_PINS 4u

/*
 * A sample to our subscribers whose key intersects its own: each pinned under the lock, its
 * callback run unlocked, its pin ended without the lock (zm_entity_unpin_unlocked), so that a
 * sample delivered to up to DISPATCH_PINS subscribers takes one lock pair. A received sample is
 * handled inside the session already (a read task, or a thread driving it, whose frame is on its
 * stack: zm_session_read), so that an undeclare or close from its callbacks does not wait for
 * them; a local one puts a frame of its own around its callbacks. When more subscribers match,
 * the last one pinned stays pinned until the next pass has begun after it.
 */
void zm_dispatch(zm_session_t *s, const zm_sample_t *smp, bool remote)
{
    zm_entity_t *pins[DISPATCH_PINS];
    zm_entity_t *from = NULL; /* the last subscriber of a full pass, still pinned */
    zm_cb_frame_t frame = {NULL, 0};
    bool framed = false;
    do {
        size_t n = 0;
        S_LOCK(s);
        ZM_ASSERT(!remote || zm_session_inside(s));
        zm_entity_t *sub = from != NULL ? from->next : s->subs;
        for (; sub != NULL && n < DISPATCH_PINS; sub = sub->next) {
            bool accepts = remote ? sub->origin != ZM_LOCALITY_SESSION_LOCAL : sub->origin != ZM_LOCALITY_REMOTE;
            if (!sub->removed && accepts && zm_keyexpr_intersects(sub->key, sub->key_len, smp->key, smp->key_len)) {
                zm_atomic_inc_relaxed(&sub->busy); /* the lock orders it */
                pins[n++] = sub;
            }
        }
        if (from != NULL) { /* no list pointer is followed after this: its end may unlock */
            (void)zm_entity_unpin(s, &s->subs, from);
        }
        from = n == DISPATCH_PINS && sub != NULL ? pins[n - 1] : NULL;
        if (!remote && n > 0 && !framed) {
            frame.thread = zm_port_thread_self();
            zm_callback_enter(s, &frame);
            framed = true;
        }
        S_UNLOCK(s);
        for (size_t i = 0; i < n; i++) {
            /* an earlier callback of this sample may have undeclared it: then it runs no more */
            if ((zm_atomic_load(&pins[i]->busy) & ZM_GONE) == 0) {
                pins[i]->fn(smp, pins[i]->ctx);
            }
            if (pins[i] != from) {
                zm_entity_unpin_unlocked(s, &s->subs, pins[i]);
            }
        }
    } while (from != NULL);
    if (framed) {
        S_LOCK(s);
        zm_callback_leave(s, &frame);
        S_UNLOCK(s);
    }
}

void zm_subscribers_close(zm_session_t *s) { zm_entities_free_all(&s->subs); }

#endif /* Z_FEATURE_SUBSCRIPTION */
