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
        zm_atomic_inc_relaxed(&sub->busy); /* the lock orders it */
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
        zm_atomic_inc_relaxed(&sub->busy); /* the lock orders it */
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

/* s->lock held: the first subscriber from sub on that takes smp; NULL when none does. */
static zm_entity_t *find_from(zm_entity_t *sub, const zm_sample_t *smp, bool remote)
{
    for (; sub != NULL; sub = sub->next) {
        bool accepts = remote ? sub->origin != ZM_LOCALITY_SESSION_LOCAL : sub->origin != ZM_LOCALITY_REMOTE;
        if (!sub->removed && accepts && zm_keyexpr_intersects(sub->key, sub->key_len, smp->key, smp->key_len)) {
            return sub;
        }
    }
    return NULL;
}

/* s->lock held: find_from, pinned. */
static zm_entity_t *match_from(zm_entity_t *sub, const zm_sample_t *smp, bool remote)
{
    sub = find_from(sub, smp, remote);
    if (sub != NULL) {
        zm_atomic_inc_relaxed(&sub->busy); /* the lock orders it */
    }
    return sub;
}

/* s->lock held: the first subscriber that takes smp, pinned, from memo while no declaration of
 * ours changed since it was found (a removed one moved entities_gen too); *more: whether one
 * after it may take smp too. */
static zm_entity_t *match_first(zm_session_t *s, const zm_sample_t *smp, bool remote, zm_match_memo_t *memo,
                                bool *more)
{
    if (!ZM_DISPATCH_MEMO || memo == NULL) {
        *more = true;
        return match_from(s->subs, smp, remote);
    }
    if (memo->gen != s->entities_gen) {
        memo->first = find_from(s->subs, smp, remote);
        memo->more = memo->first != NULL && find_from(memo->first->next, smp, remote) != NULL;
        memo->gen = s->entities_gen;
    }
    *more = memo->more;
    if (memo->first != NULL) {
        zm_atomic_inc_relaxed(&memo->first->busy);
    }
    return memo->first;
}

/*
 * A sample to our subscribers whose key intersects its own, one lock pair each: under the lock,
 * the next one is found and pinned before this one's callback runs unlocked, so that the walk
 * goes on from it once this one's pin ended without the lock (zm_entity_unpin_unlocked). A
 * received sample is handled inside the session already (a read task, or a thread driving it,
 * whose frame is on its stack: zm_session_read), so that an undeclare or close from its callbacks
 * does not wait for them; a local one puts a frame of its own around its callbacks.
 */
void zm_dispatch(zm_session_t *s, const zm_sample_t *smp, bool remote, zm_match_memo_t *memo)
{
    remote = remote || !Z_FEATURE_LOCAL_SUBSCRIBER; /* without local subscribers, every sample is received */
    S_LOCK(s);
    ZM_ASSERT(!remote || zm_session_inside(s));
    ZM_ASSERT(memo == NULL || remote);
    bool more;
    zm_entity_t *sub = match_first(s, smp, remote, memo, &more);
    if (sub == NULL) {
        S_UNLOCK(s);
        return;
    }
    zm_cb_frame_t frame = {NULL, 0};
    if (!remote) {
        frame.thread = zm_port_thread_self();
        zm_callback_enter(s, &frame);
    }
    for (;;) {
        zm_entity_t *next = more ? match_from(sub->next, smp, remote) : NULL;
        S_UNLOCK(s);
        /* an earlier callback of this sample may have undeclared it: then it runs no more */
        if ((zm_atomic_load(&sub->busy) & ZM_GONE) == 0) {
            sub->fn(smp, sub->ctx);
        }
        zm_entity_unpin_unlocked(s, &s->subs, sub);
        sub = next;
        if (sub == NULL && remote) {
            return;
        }
        S_LOCK(s);
        if (sub == NULL) {
            zm_callback_leave(s, &frame);
            S_UNLOCK(s);
            return;
        }
    }
}

void zm_subscribers_close(zm_session_t *s) { zm_entities_free_all(&s->subs); }

#endif /* Z_FEATURE_SUBSCRIPTION */
