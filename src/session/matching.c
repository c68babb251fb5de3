/*
 * Matching: whether any subscriber matches the key of one of our publishers. Peers tell us
 * their subscribers (remote.c counts them against our keys as they come and go); a router tells
 * a client only those it asks for, so each publisher sends every router an INTEREST in the
 * subscribers of its key (aggregated: the router answers with one declaration while any
 * matches). Listeners are told when their publisher's status flips, on the thread whose
 * declaration or departure flipped it; the status itself is read from the counts, never by a
 * scan of declarations.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/internal.h"
#include "util/alloc.h"

#if Z_FEATURE_MATCHING

/* s->lock held: the status of a publisher on key key_id (text key), publishing to destination. */
static bool status_locked(zm_session_t *s, uint16_t key_id, const char *key, size_t len, uint8_t destination)
{
    if (destination != ZM_LOCALITY_SESSION_LOCAL) {
        const zm_lkey_t *k = zm_idmap_get(&s->keys, key_id);
        for (size_t i = 0; k != NULL && i < ZM_PEERS_MAX; i++) {
            if (s->peers[i].state == PEER_LIVE && k->hits.n[i] > 0) {
                return true;
            }
        }
    }
#if Z_FEATURE_SUBSCRIPTION
    if (destination != ZM_LOCALITY_REMOTE) {
        for (const zm_sub_t *sub = s->subs; sub != NULL; sub = sub->next) {
            if (!sub->removed && sub->origin != ZM_LOCALITY_REMOTE &&
                zm_keyexpr_intersects(sub->key, sub->key_len, key, len)) {
                return true;
            }
        }
    }
#else
    ZM_UNUSED(key);
    ZM_UNUSED(len);
#endif
    return false;
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
        *matching = status_locked(s, p->key_id, k->key, k->key_len, destination);
    }
    S_UNLOCK(s);
    return k != NULL ? Z_OK : Z_EINVAL;
}

void zm_matching_update(zm_session_t *s)
{
    zm_cb_frame_t frame = {NULL, 0};
    bool framed = false;
    S_LOCK(s);
    zm_sub_t *e = s->mls;
    while (e != NULL) {
        bool now = !e->removed && status_locked(s, e->key_id, e->key, e->key_len, e->origin);
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
    zm_sub_t *e = k != NULL ? zm_entity_new(k->key, k->key_len) : NULL;
    uint16_t key_id = p != NULL ? p->key_id : 0;
    S_UNLOCK(s);
    if (e == NULL) {
        return k == NULL ? Z_EINVAL : ZM_E_NOMEM;
    }
    e->origin = destination;
    e->mfn = fn;
    e->owner = pub_id;
    e->key_id = key_id;
    e->drop = drop;
    e->ctx = ctx;
    *id = zm_entity_add(s, &s->mls, e);
    zm_matching_update(s); /* a subscriber may match already */
    return Z_OK;
}

z_result_t zm_session_undeclare_matching_listener(zm_session_t *s, uint32_t id)
{
    bool remote;
    return zm_entity_remove(s, &s->mls, id, &remote);
}

void zm_matching_drop_publisher(zm_session_t *s, uint32_t pub_id)
{
    for (;;) {
        S_LOCK(s);
        const zm_sub_t *e = s->mls;
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

static void interest_msg(zm_network_msg_t *m, uint32_t pub_id, uint16_t key_id, bool on)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_INTEREST;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    zm_interest_t *it = &m->body.interest;
    it->id = pub_id;
    if (!on) {
        it->mode = ZM_INTEREST_FINAL;
        return;
    }
    /* as a client asks it: current and future subscribers of the key, aggregated */
    it->mode = ZM_INTEREST_CURRENT_FUTURE;
    it->options = ZM_INTEREST_K | ZM_INTEREST_S | ZM_INTEREST_R | ZM_INTEREST_A;
    it->wire_expr.scope = key_id;
    it->wire_expr.mapping = ZM_MAPPING_SENDER;
}

static bool is_router(zm_peer_t *p, const void *arg)
{
    ZM_UNUSED(arg);
    return p->t.remote_whatami == ZM_WAI_ROUTER;
}

void zm_matching_interest(zm_session_t *s, uint32_t pub_id, uint16_t key_id, bool on)
{
    zm_peer_t *pinned[ZM_PEERS_MAX];
    size_t n = zm_peers_pin(s, pinned, is_router, NULL);
    if (n > 0) {
        zm_network_msg_t m;
        interest_msg(&m, pub_id, key_id, on);
        for (size_t i = 0; i < n; i++) {
            zm_peer_send(pinned[i], &m, ZM_PRIO_CONTROL, false);
        }
    }
    zm_peers_unpin(s, pinned, n);
}

z_result_t zm_matching_push_interests(zm_session_t *s, zm_peer_t *p)
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
        uint32_t id = next != NULL ? next->id : 0;
        uint16_t key_id = next != NULL ? next->key_id : 0;
        S_UNLOCK(s);
        if (id == 0) {
            break;
        }
        zm_network_msg_t m;
        interest_msg(&m, id, key_id, true);
        rc = zm_transport_send(&p->t, &m, true, ZM_PRIO_CONTROL, false);
        after = id;
    }
    return rc;
}

#endif /* Z_FEATURE_MATCHING */
