/*
 * Matching: whether any subscriber matches the key of one of our publishers, any queryable the
 * key of one of our queriers. Peers tell us their subscribers (remote.c counts them against our
 * keys as they come and go) and queryables (counted here against our queriers, as the hub tells
 * of each: peer_qbl); a router tells a client only those it asks for, so each publisher or
 * querier sends every router an INTEREST in the subscribers (queryables) of its key
 * (aggregated: the router answers with one declaration while any matches). Listeners are told
 * when their publisher's status flips, on the thread whose declaration or departure flipped it;
 * the status itself is read from the counts, never by a scan of peers' declarations: a
 * declaration costs the count of our queriers, not of what every peer declared.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

#if Z_FEATURE_MATCHING

/* s->lock held: whether a remote subscriber matches our key key_id (counted as they come). */
static bool remote_subs(zm_session_t *s, uint16_t key_id)
{
    const zm_lkey_t *k = zm_idmap_get(&s->keys, key_id);
    for (size_t i = 0; k != NULL && i < zm_slots(s); i++) {
        if (s->peers[i].state == PEER_LIVE && k->hits.n[i] > 0) {
            return true;
        }
    }
    return false;
}

/* Whether queryable d answers key: one that includes it and is complete, or any that intersects. */
static bool qbl_answers(const zm_rdecl_t *d, const char *key, size_t len, bool complete)
{
    return complete ? d->complete && zm_keyexpr_includes(d->key, d->key_len, key, len)
                    : zm_keyexpr_intersects(d->key, d->key_len, key, len);
}

typedef struct {
    const char *key;
    size_t len;
    bool complete;
    uint32_t n;
} qbl_count_t;

static bool qbl_count_one(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    qbl_count_t *c = ctx;
    c->n += qbl_answers(val, c->key, c->len, c->complete) ? 1u : 0u;
    return true;
}

/* s->lock held: the peers' queryables that answer querier q, counted afresh (when it is declared). */
static uint32_t qbls_count(zm_session_t *s, const zm_pub_t *q)
{
    const zm_lkey_t *k = zm_idmap_get(&s->keys, q->key_id);
    if (k == NULL) {
        return 0;
    }
    qbl_count_t c = {k->key, k->key_len, q->target == ZM_TARGET_ALL_COMPLETE, 0};
    for (size_t i = 0; i < zm_slots(s); i++) {
        zm_idmap_foreach(&s->peers[i].remote.qbls, qbl_count_one, &c);
    }
    return c.n;
}

void zm_matching_peer_qbl(zm_session_t *s, const zm_rdecl_t *d, int delta)
{
    for (zm_pub_t *q = s->pubs; q != NULL; q = q->next) {
        const zm_lkey_t *k = q->querier ? zm_idmap_get(&s->keys, q->key_id) : NULL;
        if (k == NULL || !qbl_answers(d, k->key, k->key_len, q->target == ZM_TARGET_ALL_COMPLETE)) {
            continue;
        }
        if (delta > 0) {
            q->qbls++;
        } else if (q->qbls > 0) { /* a querier counts afresh when declared: one it missed may go */
            q->qbls--;
        }
    }
}

#if Z_FEATURE_SUBSCRIPTION || Z_FEATURE_QUERYABLE
/* s->lock held: whether a local entity of list head answers key, as a publisher or querier sees it. */
static bool local_match(const zm_entity_t *head, const char *key, size_t len, bool complete)
{
    for (const zm_entity_t *e = head; e != NULL; e = e->next) {
        bool hit = complete ? e->complete && zm_keyexpr_includes(e->key, e->key_len, key, len)
                            : zm_keyexpr_intersects(e->key, e->key_len, key, len);
        if (!e->removed && e->origin != ZM_LOCALITY_REMOTE && hit) {
            return true;
        }
    }
    return false;
}
#endif

/*
 * s->lock held: the status of publisher or querier p (key key[0..len)), sending to destination:
 * a remote and a local subscriber (publishers) or queryable (queriers; complete ones for target
 * ALL_COMPLETE) count as the destination allows.
 */
static bool status_locked(zm_session_t *s, const zm_pub_t *p, const char *key, size_t len, uint8_t destination)
{
    bool remote = destination != ZM_LOCALITY_SESSION_LOCAL;
    bool local = destination != ZM_LOCALITY_REMOTE;
    if (p->querier) { /* its queryables counted as they come and go (a querier is a build with them) */
#if Z_FEATURE_QUERYABLE
        bool complete = p->target == ZM_TARGET_ALL_COMPLETE;
        return (remote && p->qbls > 0) || (local && local_match(s->qbls, key, len, complete));
#else
        return remote && p->qbls > 0;
#endif
    }
#if Z_FEATURE_SUBSCRIPTION
    return (remote && remote_subs(s, p->key_id)) || (local && local_match(s->subs, key, len, false));
#else
    ZM_UNUSED(local);
    ZM_UNUSED(key);
    ZM_UNUSED(len);
    return remote && remote_subs(s, p->key_id);
#endif
}

/* s->lock held: the publisher pub_id, or NULL. */
static const zm_pub_t *pub_find(const zm_session_t *s, uint32_t pub_id)
{
    const zm_pub_t *p = s->pubs;
    while (p != NULL && p->id != pub_id) {
        p = p->next;
    }
    return p;
}

z_result_t zm_session_publisher_matching(zm_session_t *s, uint32_t pub_id, uint8_t destination, bool *matching)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    S_LOCK(s);
    const zm_pub_t *p = pub_find(s, pub_id);
    const zm_lkey_t *k = p != NULL ? zm_idmap_get(&s->keys, p->key_id) : NULL;
    if (k != NULL) {
        *matching = status_locked(s, p, k->key, k->key_len, destination);
    }
    S_UNLOCK(s);
    return k != NULL ? Z_OK : Z_EINVAL;
}

/* s->lock held: the status listener e should be told now (false once its publisher is gone). */
static bool listener_status(zm_session_t *s, const zm_entity_t *e)
{
    const zm_pub_t *p = e->removed ? NULL : pub_find(s, e->owner);
    return p != NULL && status_locked(s, p, e->key, e->key_len, e->origin);
}

void zm_matching_changed(zm_session_t *s)
{
    zm_cb_frame_t frame = {NULL, 0};
    bool framed = false;
    S_LOCK(s);
    zm_entity_t *e = s->mls;
    while (e != NULL) {
        bool now = listener_status(s, e);
        if (e->removed || now == e->matching) {
            e = e->next;
            continue;
        }
        e->matching = now;
        e->busy++;
        if (!framed) {
            frame.thread = zm_port_thread_self();
            framed = true;
        }
        zm_callback_enter(s, &frame);
        S_UNLOCK(s);
        e->mfn(now, e->ctx);
        S_LOCK(s);
        zm_callback_leave(s, &frame);
        e = zm_entity_unpin(s, &s->mls, e);
    }
    S_UNLOCK(s);
}

z_result_t zm_session_declare_matching_listener(zm_session_t *s, uint32_t pub_id, uint8_t destination,
                                                zm_matching_fn fn, zm_drop_fn drop, void *ctx, uint32_t *id)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (fn == NULL || destination > ZM_LOCALITY_REMOTE) {
        return Z_EINVAL;
    }
    S_LOCK(s);
    const zm_pub_t *p = pub_find(s, pub_id);
    const zm_lkey_t *k = p != NULL ? zm_idmap_get(&s->keys, p->key_id) : NULL;
    zm_entity_t *e = k != NULL ? zm_entity_new(k->key, k->key_len) : NULL;
    S_UNLOCK(s);
    if (e == NULL) {
        return k == NULL ? Z_EINVAL : ZM_E_NOMEM;
    }
    e->origin = destination;
    e->mfn = fn;
    e->owner = pub_id;
    e->drop = drop;
    e->ctx = ctx;
    *id = zm_entity_add(s, &s->mls, e);
    zm_matching_changed(s); /* a subscriber may match already */
    return Z_OK;
}

z_result_t zm_session_undeclare_matching_listener(zm_session_t *s, uint32_t id)
{
    bool remote;
    return zm_entity_remove(s, &s->mls, id, &remote);
}

/* Undeclares the listeners of a publisher that goes. */
static void drop_listeners(zm_session_t *s, uint32_t pub_id)
{
    for (;;) {
        S_LOCK(s);
        const zm_entity_t *e = s->mls;
        while (e != NULL && (e->owner != pub_id || e->removed)) {
            e = e->next;
        }
        uint32_t id = e != NULL ? e->id : 0;
        S_UNLOCK(s);
        if (id == 0 || zm_session_undeclare_matching_listener(s, id) != Z_OK) {
            return;
        }
    }
}

static void interest_msg(zm_network_msg_t *m, const zm_pub_t *p, bool on)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_INTEREST;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    zm_interest_t *it = &m->body.interest;
    it->id = p->id;
    if (!on) {
        it->mode = ZM_INTEREST_FINAL;
        return;
    }
    /* as a client asks it: current and future subscribers (queryables) of the key, aggregated */
    it->mode = ZM_INTEREST_CURRENT_FUTURE;
    it->options = (uint8_t)(ZM_INTEREST_K | (p->querier ? ZM_INTEREST_Q : ZM_INTEREST_S) | ZM_INTEREST_R |
                            ZM_INTEREST_A);
    it->wire_expr.scope = p->key_id;
    it->wire_expr.mapping = ZM_MAPPING_SENDER;
}

static bool is_router(zm_peer_t *p, const void *arg)
{
    ZM_UNUSED(arg);
    return p->t.remote_whatami == ZM_WAI_ROUTER;
}

/* The INTEREST of a publisher or querier in the subscribers or queryables of its key, to every router (or its end). */
static void send_interest(zm_session_t *s, const zm_pub_t *pub, bool on)
{
    zm_pins_t pinned;
    zm_peers_pin_if(s, &pinned, is_router, NULL);
    if (pinned.n > 0) {
        zm_network_msg_t m;
        interest_msg(&m, pub, on);
        for (size_t i = 0; i < pinned.n; i++) {
            zm_peer_send(pinned.p[i], &m, ZM_PRIO_CONTROL, false);
        }
    }
    zm_peers_unpin(&pinned);
}

void zm_matching_sender(zm_session_t *s, zm_pub_t *pub, bool on)
{
    if (!on) {
        drop_listeners(s, pub->id);
    }
    if (ZM_QBL_TRACKING && on && pub->querier) {
        S_LOCK(s);
        pub->qbls = qbls_count(s, pub); /* from now on counted as they come and go */
        S_UNLOCK(s);
    }
    send_interest(s, pub, on);
}

#if ZM_PUSH_DECLS
/* The INTERESTs of all our publishers and queriers to a new router. */
z_result_t zm_matching_push(zm_session_t *s, zm_peer_t *p)
{
    if (p->t.remote_whatami != ZM_WAI_ROUTER) {
        return Z_OK; /* peers declare their subscribers to everyone */
    }
    z_result_t rc = Z_OK;
    uint32_t after = 0;
    while (rc == Z_OK) {
        /* the publisher with the next id: publishers may come and go while we send */
        S_LOCK(s);
        const zm_pub_t *next = NULL;
        for (const zm_pub_t *q = s->pubs; q != NULL; q = q->next) {
            if (q->id > after && (next == NULL || q->id < next->id)) {
                next = q;
            }
        }
        zm_pub_t copy;
        if (next != NULL) {
            copy = *next;
        }
        S_UNLOCK(s);
        if (next == NULL) {
            break;
        }
        zm_network_msg_t m;
        interest_msg(&m, &copy, true);
        uint32_t id = copy.id;
        rc = zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, false);
        after = id;
    }
    return rc;
}
#endif

void zm_matching_close(zm_session_t *s) { zm_entities_free_all(&s->mls); }

#endif /* Z_FEATURE_MATCHING */
