/*
 * Our declarations: key expressions, subscribers and publishers of this session, sent to every
 * peer when made and again to each new peer (then, to a peer, the D_FINAL of the implicit
 * initial interest, as Rust peers expect), and answered to a peer's INTEREST. Declarations
 * travel as Rust sends them: on the reliable Control channel with the DECLARE QoS (Control +
 * Block). Each key expression we declare carries the count of each peer's subscribers that
 * intersect it (remote.c keeps them current), which is all a put on it needs.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/internal.h"
#include "util/alloc.h"

#if ZM_PUSH_DECLS
static void declare_msg(zm_network_msg_t *m, const zm_declaration_t *d, bool with_interest)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_DECLARE;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    m->body.declare.has_interest_id = with_interest;
    m->body.declare.decl = *d;
}

static z_result_t send_decl(zm_peer_t *p, const zm_declaration_t *d, bool with_interest)
{
    zm_network_msg_t m;
    declare_msg(&m, d, with_interest);
    return zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, false);
}
#endif

void zm_decl_fill(zm_declaration_t *d, uint8_t kind, uint32_t id, const char *key, size_t len)
{
    memset(d, 0, sizeof(*d));
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
}

/*
 * The DECLARE of kind for entity id on key (suffix only; the sender's mapping, but for D_KEYEXPR,
 * which has none on the wire), built in m itself rather than apart to be copied in. Not inlined:
 * a broadcast and the D_FINAL to a new peer (without ZM_PUSH_DECLS) share it.
 */
static ZM_NOINLINE zm_declaration_t *declare_in(zm_network_msg_t *m, uint8_t kind, uint32_t id, const char *key, size_t len)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_DECLARE;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    zm_declaration_t *d = &m->body.declare.decl;
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = kind == ZM_DECL_KEYEXPR ? ZM_MAPPING_RECEIVER : ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
    return d;
}

/* Not inlined: its message is on the stack only while it is sent. */
ZM_NOINLINE void zm_decl_broadcast(zm_session_t *s, uint8_t kind, uint32_t id, const char *key, size_t len,
                                   uint8_t extras)
{
    zm_network_msg_t m;
    zm_declaration_t *d = declare_in(&m, kind, id, key, len);
#if Z_FEATURE_QUERYABLE || Z_FEATURE_LIVELINESS
    d->has_ext_wire = (extras & ZM_DECL_EXT_WIRE) != 0;
    d->has_qbl_info = (extras & ZM_DECL_QBL_INFO) != 0;
    d->qbl_complete = (extras & ZM_DECL_QBL_COMPLETE) != 0;
#else
    ZM_UNUSED(d);
    ZM_UNUSED(extras);
    ZM_ASSERT(extras == 0); /* only queryables and tokens have them */
#endif
    zm_peer_t *pinned[ZM_PEERS_PIN];
    size_t n = zm_peers_pin(s, pinned, NULL, NULL);
    for (size_t i = 0; i < n && i < ZM_PEERS_PIN; i++) { /* the bound: a client's is one peer */
#if Z_FEATURE_MULTICAST_TRANSPORT
        if (zm_peer_is_group(pinned[i]) && !zm_mcast_declares(kind)) {
            continue;
        }
#endif
        z_result_t r = zm_transport_send(zm_peer_tx(pinned[i]), &m, true, ZM_PRIO_CONTROL, false);
        if (r == Z_OK && !s->batching) {
            r = zm_transport_flush(&pinned[i]->t);
        }
        if (r != Z_OK) {
            zm_peer_send_failed(pinned[i], r, "a declaration could not be sent");
        }
    }
    zm_peers_unpin(s, pinned, n);
}

#if ZM_LOCAL_ENTITIES
/* An entity that is out of its list and pinned by nobody: its owner's context goes with it. One
 * body for the three ways an entity ends. */
static ZM_NOINLINE void entity_free(zm_sub_t *e)
{
    if (e->drop != NULL) {
        e->drop(e->ctx);
    }
    zm_free(e);
}

static void entity_unlink(zm_sub_t **head, zm_sub_t *e)
{
    zm_sub_t **pp = head;
    while (*pp != NULL && *pp != e) {
        pp = &(*pp)->next;
    }
    if (*pp == e) {
        *pp = e->next;
    }
}

/*
 * s->lock held. Ends one pin of e (a callback or a send that ran unlocked) and returns the
 * entity after it. The last pin of an undeclared entity frees it, unless its undeclare is
 * waiting for the pins to end (then that undeclare frees it); an undeclare made from a callback
 * does not wait, and leaves it to us.
 */
zm_sub_t *zm_entity_unpin(zm_session_t *s, zm_sub_t **head, zm_sub_t *e)
{
    zm_sub_t *next = e->next;
    if (--e->busy == 0 && e->removed && !e->awaited) {
        entity_unlink(head, e);
        S_UNLOCK(s);
        entity_free(e);
        S_LOCK(s);
    }
    S_BROADCAST(s);
    return next;
}
#endif

#if ZM_PUSH_DECLS
/*
 * Our key expressions to a new peer. Each is pinned (a use more) while it is sent without the
 * lock, and let go through zm_session_undeclare_keyexpr, which frees it if the application
 * undeclared it meanwhile. A key declared during the walk reaches the peer by its own broadcast.
 */
static z_result_t push_key(zm_session_t *s, zm_peer_t *p, zm_lkey_t *k)
{
    zm_declaration_t d;
    zm_decl_fill(&d, ZM_DECL_KEYEXPR, k->id, k->key, k->key_len);
    d.wire_expr.mapping = ZM_MAPPING_RECEIVER;
    z_result_t rc = send_decl(p, &d, false);
    z_result_t released = zm_session_undeclare_keyexpr(s, k->id);
    ZM_ASSERT(released == Z_OK);
    ZM_UNUSED(released);
    return rc;
}

#if ZM_LKEY_MAP
static z_result_t push_keys(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = Z_OK;
    uint32_t pos = 0, id = 0;
    void *val = NULL;
    S_LOCK(s);
    uint32_t cap = s->keys.cap;
    while (rc == Z_OK && zm_idmap_next(&s->keys, &pos, &id, &val)) {
        if (s->keys.cap != cap) { /* it grew: walk again; a declaration sent twice is harmless */
            cap = s->keys.cap;
            pos = 0;
            continue;
        }
        zm_lkey_t *k = val;
        k->users++;
        S_UNLOCK(s);
        rc = push_key(s, p, k);
        S_LOCK(s);
    }
    S_UNLOCK(s);
    return rc;
}
#else
/* The list runs from the highest id down: each step takes the first key below the last one sent,
 * which stays right whatever was declared or undeclared while the lock was let go. */
static z_result_t push_keys(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = Z_OK;
    uint32_t below = UINT32_MAX;
    while (rc == Z_OK) {
        S_LOCK(s);
        zm_lkey_t *k = s->keys;
        while (k != NULL && k->id >= below) {
            k = k->next;
        }
        if (k != NULL) {
            k->users++;
            below = k->id;
        }
        S_UNLOCK(s);
        if (k == NULL) {
            break;
        }
        rc = push_key(s, p, k);
    }
    return rc;
}
#endif

#if Z_FEATURE_SUBSCRIPTION
/* Our subscribers to a new peer, each pinned like a callback while it is sent without the lock. */
static z_result_t push_subs(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = Z_OK;
    S_LOCK(s);
    zm_sub_t *sub = s->subs;
    while (sub != NULL && rc == Z_OK) {
        if (sub->removed || sub->origin == ZM_LOCALITY_SESSION_LOCAL) {
            sub = sub->next;
            continue;
        }
        sub->busy++;
        S_UNLOCK(s);
        zm_declaration_t d;
        zm_decl_fill(&d, ZM_DECL_SUBSCRIBER, sub->id, sub->key, sub->key_len);
        rc = send_decl(p, &d, false);
        S_LOCK(s);
        sub = zm_entity_unpin(s, &s->subs, sub);
    }
    S_UNLOCK(s);
    return rc;
}
#endif

#if Z_FEATURE_QUERYABLE
/* Not inlined: its message is on the stack only while our queryables are sent. */
static ZM_NOINLINE z_result_t push_qbls(zm_session_t *s, zm_peer_t *p)
{
    zm_network_msg_t m;
    zm_declaration_t none;
    memset(&none, 0, sizeof(none));
    declare_msg(&m, &none, false);
    return zm_query_push_queryables(s, p, NULL, 0, &m);
}
#endif

/*
 * Our declarations to a new peer, batched, then the D_FINAL of the implicit interest 0. Nothing
 * is sent under s->lock: a newcomer that does not read may hold its sender for a block timeout,
 * and with it only the thread that added it. A declaration racing with this push reaches the
 * peer either here or by its own broadcast.
 */
z_result_t zm_decl_push_all(zm_session_t *s, zm_peer_t *p)
{
    zm_transport_set_batching(&p->t, true);
    z_result_t rc = Z_OK;
    if (!zm_peer_is_group(p) || zm_mcast_declares(ZM_DECL_KEYEXPR)) {
        rc = push_keys(s, p);
    }
#if Z_FEATURE_MATCHING
    if (rc == Z_OK) {
        rc = zm_matching_push_interests(s, p);
    }
#endif
#if Z_FEATURE_SUBSCRIPTION
    if (rc == Z_OK) {
        rc = push_subs(s, p);
    }
#endif
#if Z_FEATURE_QUERYABLE
    if (rc == Z_OK && !zm_peer_is_group(p)) { /* queryables stay off a group (zm_mcast_declares) */
        rc = push_qbls(s, p);
    }
#endif
#if Z_FEATURE_LIVELINESS
    if (rc == Z_OK) {
        rc = zm_liveliness_push_all(s, p);
    }
#endif
    S_LOCK(s);
    bool batching = s->batching;
    S_UNLOCK(s);
    if (rc == Z_OK && p->t.remote_whatami != ZM_WAI_ROUTER) {
        zm_declaration_t d;
        zm_decl_fill(&d, ZM_DECL_FINAL, 0, NULL, 0);
        rc = send_decl(p, &d, true); /* ends the implicit interest 0 */
    }
    zm_transport_set_batching(&p->t, batching);
    z_result_t flushed = zm_transport_flush(&p->t);
    return rc != Z_OK ? rc : flushed;
}

#else
/* Nothing is declared yet (ZM_PUSH_DECLS): a peer is only told that there is nothing. */
z_result_t zm_decl_push_all(zm_session_t *s, zm_peer_t *p)
{
    ZM_UNUSED(s);
    if (p->t.remote_whatami == ZM_WAI_ROUTER) {
        return Z_OK;
    }
    zm_network_msg_t m;
    declare_in(&m, ZM_DECL_FINAL, 0, NULL, 0);
    m.body.declare.has_interest_id = true; /* ends the implicit interest 0 */
    return zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, false);
}
#endif /* ZM_PUSH_DECLS */

#if ZM_DECODE_INTEREST
void zm_decl_on_interest(zm_peer_t *p, const zm_interest_t *it)
{
    if ((it->mode & ZM_INTEREST_CURRENT) == 0) {
        return; /* future declarations reach every peer anyway */
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = it->id;
#if Z_FEATURE_SUBSCRIPTION || Z_FEATURE_QUERYABLE || Z_FEATURE_LIVELINESS
    zm_session_t *s = p->s;
    const char *rkey = NULL;
    size_t rlen = 0;
    if ((it->options & ZM_INTEREST_R) && zm_remote_resolve(p, &it->wire_expr, &rkey, &rlen) != Z_OK) {
        rkey = NULL;
    }
#endif
#if Z_FEATURE_SUBSCRIPTION
    if (it->options & ZM_INTEREST_S) {
        /* each subscriber is pinned like a callback while its declaration is sent unlocked */
        S_LOCK(s);
        zm_sub_t *sub = s->subs;
        while (sub != NULL) {
            if (sub->removed || sub->origin == ZM_LOCALITY_SESSION_LOCAL ||
                (rkey != NULL && !zm_keyexpr_intersects(sub->key, sub->key_len, rkey, rlen))) {
                sub = sub->next;
                continue;
            }
            sub->busy++;
            S_UNLOCK(s);
            zm_decl_fill(&m.body.declare.decl, ZM_DECL_SUBSCRIBER, sub->id, sub->key, sub->key_len);
            zm_peer_send(p, &m, ZM_PRIO_CONTROL, false);
            S_LOCK(s);
            sub = zm_entity_unpin(s, &s->subs, sub);
        }
        S_UNLOCK(s);
    }
#endif
#if Z_FEATURE_QUERYABLE
    if ((it->options & ZM_INTEREST_Q) && !zm_peer_is_member(p)) { /* the answer would go to the group */
        z_result_t rc = zm_query_push_queryables(s, p, rkey, rlen, &m);
        if (rc != Z_OK) {
            zm_peer_send_failed(p, rc, "a declaration could not be sent");
        }
    }
#endif
#if Z_FEATURE_LIVELINESS
    if (it->options & ZM_INTEREST_T) {
        z_result_t rc = zm_liveliness_push_tokens(s, p, rkey, rlen, &m);
        if (rc != Z_OK) {
            zm_peer_send_failed(p, rc, "a declaration could not be sent");
        }
    }
#endif
    zm_decl_fill(&m.body.declare.decl, ZM_DECL_FINAL, 0, NULL, 0);
    zm_peer_send(p, &m, ZM_PRIO_CONTROL, true);
}
#endif

/* ---- key expressions ---------------------------------------------------------------------------- */

/* s->lock held: the key expressions we declared, by key and by id, added and removed. */
#if ZM_LKEY_MAP
typedef struct {
    const char *key;
    size_t len;
    zm_lkey_t *found;
} lkey_find_t;

static bool lkey_match(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    zm_lkey_t *k = val;
    lkey_find_t *f = ctx;
    if (k->key_len == f->len && memcmp(k->key, f->key, f->len) == 0) {
        f->found = k;
        return false;
    }
    return true;
}

static zm_lkey_t *lkey_by_key(zm_session_t *s, const char *key, size_t len)
{
    lkey_find_t f = {key, len, NULL};
    zm_idmap_foreach(&s->keys, lkey_match, &f);
    return f.found;
}

static zm_lkey_t *lkey_by_id(zm_session_t *s, uint16_t id) { return zm_idmap_get(&s->keys, id); }

static z_result_t lkey_link(zm_session_t *s, zm_lkey_t *k)
{
    void *old = NULL;
    return zm_idmap_put(&s->keys, k->id, k, &old);
}

static void lkey_unlink(zm_session_t *s, zm_lkey_t *k) { (void)zm_idmap_remove(&s->keys, k->id); }

static bool lkey_free(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    ZM_UNUSED(ctx);
    zm_free(val);
    return true;
}
#else
static zm_lkey_t *lkey_by_key(zm_session_t *s, const char *key, size_t len)
{
    zm_lkey_t *k = s->keys;
    while (k != NULL && (k->key_len != len || memcmp(k->key, key, len) != 0)) {
        k = k->next;
    }
    return k;
}

static zm_lkey_t *lkey_by_id(zm_session_t *s, uint16_t id)
{
    zm_lkey_t *k = s->keys;
    while (k != NULL && k->id != id) {
        k = k->next;
    }
    return k;
}

static z_result_t lkey_link(zm_session_t *s, zm_lkey_t *k)
{
    k->next = s->keys; /* its id is the highest yet */
    s->keys = k;
    return Z_OK;
}

static void lkey_unlink(zm_session_t *s, zm_lkey_t *k)
{
    zm_lkey_t **pp = &s->keys;
    while (*pp != k) {
        pp = &(*pp)->next;
    }
    *pp = k->next;
}
#endif

z_result_t zm_session_declare_keyexpr(zm_session_t *s, const char *key, size_t len, uint16_t *id)
{
    ZM_TRY(zm_keyexpr_validate(key, len));
    S_LOCK(s);
    zm_lkey_t *k = lkey_by_key(s, key, len);
    if (k != NULL) {
        k->users++; /* already declared: share it */
        *id = k->id;
        S_UNLOCK(s);
        return Z_OK;
    }
    if (s->next_key_id == 0) {
        S_UNLOCK(s);
        return ZM_E_NO_SPACE; /* 65535 expr ids used up */
    }
    k = zm_alloc(sizeof(*k) + len);
    if (k == NULL) {
        S_UNLOCK(s);
        return ZM_E_NOMEM;
    }
    uint16_t kid = s->next_key_id;
    k->users = 1;
    k->id = kid;
    k->key_len = len;
    memcpy(k->key, key, len);
#if ZM_SUB_TRACKING
    zm_hits_count(s, key, len, &k->hits);
#endif
    if (lkey_link(s, k) != Z_OK) {
        S_UNLOCK(s);
        zm_free(k);
        return ZM_E_NOMEM;
    }
    s->next_key_id = (uint16_t)(kid + 1u);
    S_UNLOCK(s);
    *id = kid;
    zm_decl_broadcast(s, ZM_DECL_KEYEXPR, kid, key, len, 0); /* a peer that fails is dropped; the declaration stands */
    return Z_OK;
}

z_result_t zm_session_undeclare_keyexpr(zm_session_t *s, uint16_t id)
{
    S_LOCK(s);
    zm_lkey_t *k = lkey_by_id(s, id);
    bool last = k != NULL && --k->users == 0;
    if (last) {
        lkey_unlink(s, k);
    }
    S_UNLOCK(s);
    if (k == NULL) {
        return Z_EINVAL;
    }
    if (last) {
        zm_free(k);
        zm_decl_broadcast(s, ZM_UNDECL_KEYEXPR, id, NULL, 0, 0);
    }
    return Z_OK;
}

void zm_decl_free_all(zm_session_t *s)
{
#if ZM_LKEY_MAP
    zm_idmap_foreach(&s->keys, lkey_free, NULL);
    zm_idmap_free(&s->keys);
#else
    while (s->keys != NULL) {
        zm_lkey_t *k = s->keys;
        s->keys = k->next;
        zm_free(k);
    }
#endif
#if ZM_SENDERS_KEPT
    while (s->pubs != NULL) {
        zm_pub_t *p = s->pubs;
        s->pubs = p->next;
        zm_free(p);
    }
#endif
}

/* ---- local entities: subscribers and queryables -------------------------------------------------- */

#if ZM_LOCAL_ENTITIES

zm_sub_t *zm_entity_new(const char *key, size_t len)
{
    zm_sub_t *e = zm_alloc(sizeof(*e) + len);
    if (e != NULL) {
        memset(e, 0, sizeof(*e));
        memcpy(e->key, key, len);
        e->key_len = len;
    }
    return e;
}

uint32_t zm_entity_add(zm_session_t *s, zm_sub_t **head, zm_sub_t *e)
{
    S_LOCK(s);
    e->id = s->next_id++;
    e->next = *head;
    *head = e;
    uint32_t id = e->id;
    S_UNLOCK(s);
    return id;
}

void zm_callback_enter(zm_session_t *s, zm_cb_frame_t *frame)
{
    frame->next = s->frames;
    s->frames = frame;
}

void zm_callback_leave(zm_session_t *s, zm_cb_frame_t *frame)
{
    zm_cb_frame_t **pp = &s->frames;
    while (*pp != frame) {
        pp = &(*pp)->next;
    }
    *pp = frame->next;
}

/* s->lock held */
static bool in_callback(const zm_session_t *s)
{
    zm_thread_id_t self = zm_port_thread_self();
    for (const zm_cb_frame_t *f = s->frames; f != NULL; f = f->next) {
        if (f->thread == self) {
            return true;
        }
    }
    return false;
}

z_result_t zm_entity_remove(zm_session_t *s, zm_sub_t **head, uint32_t id, bool *remote)
{
    S_LOCK(s);
    zm_sub_t *e = *head;
    while (e != NULL && (e->id != id || e->removed)) {
        e = e->next;
    }
    if (e == NULL) {
        S_UNLOCK(s);
        return Z_EINVAL;
    }
    e->removed = true;
    *remote = e->origin != ZM_LOCALITY_SESSION_LOCAL;
    /* after this returns, the callback runs no more: wait for the calls under way */
    bool inside = in_callback(s);
    e->awaited = !inside; /* then this undeclare frees it, not the last unpin */
    while (e->busy > 0 && !inside) {
        S_WAIT(s, 1000u);
    }
    bool free_now = e->busy == 0;
    if (free_now) {
        entity_unlink(head, e);
    }
    S_UNLOCK(s);
    if (free_now) {
        entity_free(e);
    }
    return Z_OK;
}

void zm_entities_free_all(zm_sub_t **head)
{
    while (*head != NULL) {
        zm_sub_t *e = *head;
        *head = e->next;
        entity_free(e);
    }
}

#endif /* ZM_LOCAL_ENTITIES */

/* ---- subscribers -------------------------------------------------------------------------------- */

#if Z_FEATURE_SUBSCRIPTION

z_result_t zm_session_declare_subscriber(zm_session_t *s, const char *key, size_t len, uint8_t origin,
                                         zm_sample_fn fn, zm_drop_fn drop, void *ctx, uint32_t *id)
{
    ZM_TRY(zm_keyexpr_validate(key, len));
    ZM_ASSERT(fn != NULL && origin <= ZM_LOCALITY_REMOTE); /* the API checked the user's closure and options */
    zm_sub_t *sub = zm_entity_new(key, len);
    if (sub == NULL) {
        return ZM_E_NOMEM;
    }
    sub->origin = origin;
    sub->fn = fn;
    sub->drop = drop;
    sub->ctx = ctx;
    *id = zm_entity_add(s, &s->subs, sub);
    if (origin != ZM_LOCALITY_SESSION_LOCAL) {
        zm_decl_broadcast(s, ZM_DECL_SUBSCRIBER, *id, key, len, 0);
    }
#if Z_FEATURE_MATCHING
    zm_matching_update(s); /* our publishers may match it */
#endif
    return Z_OK;
}

z_result_t zm_session_undeclare_subscriber(zm_session_t *s, uint32_t id)
{
    bool remote;
    ZM_TRY(zm_entity_remove(s, &s->subs, id, &remote));
    if (remote) {
        zm_decl_broadcast(s, ZM_UNDECL_SUBSCRIBER, id, NULL, 0, 0);
    }
#if Z_FEATURE_MATCHING
    zm_matching_update(s);
#endif
    return Z_OK;
}

void zm_dispatch(zm_session_t *s, const zm_sample_t *smp, bool remote)
{
    zm_cb_frame_t frame = {NULL, 0};
    bool framed = false; /* the thread's id is asked for once, when a subscriber matches */
    S_LOCK(s);
    zm_sub_t *sub = s->subs;
    while (sub != NULL) {
        bool accepts = remote ? sub->origin != ZM_LOCALITY_SESSION_LOCAL : sub->origin != ZM_LOCALITY_REMOTE;
        if (!sub->removed && accepts && zm_keyexpr_intersects(sub->key, sub->key_len, smp->key, smp->key_len)) {
            sub->busy++;
            if (!framed) {
                frame.thread = zm_port_thread_self();
                framed = true;
            }
            zm_callback_enter(s, &frame);
            S_UNLOCK(s);
            sub->fn(smp, sub->ctx);
            S_LOCK(s);
            zm_callback_leave(s, &frame);
            sub = zm_entity_unpin(s, &s->subs, sub);
            continue;
        }
        sub = sub->next;
    }
    S_UNLOCK(s);
}

#endif /* Z_FEATURE_SUBSCRIPTION */

/* ---- publishers and queriers ------------------------------------------------------------------- */

#if (Z_FEATURE_PUBLICATION || Z_FEATURE_QUERY) && ZM_SENDERS_KEPT

/* Declares the key expression of a publisher or querier and records it (its id in *id). */
static z_result_t sender_add(zm_session_t *s, const char *key, size_t len, bool querier, uint8_t target, uint32_t *id,
                             uint16_t *key_id)
{
    zm_pub_t *p = zm_alloc(sizeof(*p));
    if (p == NULL) {
        return ZM_E_NOMEM;
    }
    z_result_t rc = zm_session_declare_keyexpr(s, key, len, key_id);
    if (rc != Z_OK) {
        zm_free(p);
        return rc;
    }
    S_LOCK(s);
    p->id = s->next_id++;
    p->key_id = *key_id;
    p->querier = querier;
    p->target = target;
    p->next = s->pubs;
    s->pubs = p;
    *id = p->id;
    S_UNLOCK(s);
#if Z_FEATURE_MATCHING
    zm_matching_interest(s, p, true);
#endif
    return Z_OK;
}

static z_result_t sender_remove(zm_session_t *s, uint32_t id, bool querier)
{
    S_LOCK(s);
    zm_pub_t **pp = &s->pubs;
    while (*pp != NULL && ((*pp)->id != id || (*pp)->querier != querier)) {
        pp = &(*pp)->next;
    }
    zm_pub_t *p = *pp;
    if (p != NULL) {
        *pp = p->next;
    }
    S_UNLOCK(s);
    if (p == NULL) {
        return Z_EINVAL;
    }
    uint16_t key_id = p->key_id;
#if Z_FEATURE_MATCHING
    zm_matching_drop_publisher(s, id);
    zm_matching_interest(s, p, false);
#endif
    zm_free(p);
    return zm_session_undeclare_keyexpr(s, key_id); /* the key goes with its last user */
}
#endif

#if Z_FEATURE_PUBLICATION && ZM_SENDERS_KEPT
z_result_t zm_session_declare_publisher(zm_session_t *s, const char *key, size_t len, uint32_t *id, uint16_t *key_id)
{
    return sender_add(s, key, len, false, 0, id, key_id);
}

z_result_t zm_session_undeclare_publisher(zm_session_t *s, uint32_t id) { return sender_remove(s, id, false); }
#elif Z_FEATURE_PUBLICATION
/* Nothing reads a publisher once declared (ZM_SENDERS_KEPT): it is its key expression's use, and
 * an entity id of its own. */
z_result_t zm_session_declare_publisher(zm_session_t *s, const char *key, size_t len, uint32_t *id, uint16_t *key_id)
{
    ZM_TRY(zm_session_declare_keyexpr(s, key, len, key_id));
    S_LOCK(s);
    *id = s->next_id++;
    S_UNLOCK(s);
    return Z_OK;
}

z_result_t zm_session_undeclare_publisher_key(zm_session_t *s, uint32_t key_id)
{
    return zm_session_undeclare_keyexpr(s, (uint16_t)key_id); /* the key goes with its last user */
}
#endif

#if Z_FEATURE_QUERY
z_result_t zm_session_declare_querier(zm_session_t *s, const char *key, size_t len, uint8_t target, uint32_t *id)
{
    if (target > ZM_TARGET_ALL_COMPLETE) {
        return Z_EINVAL;
    }
    uint16_t key_id;
    return sender_add(s, key, len, true, target, id, &key_id);
}

z_result_t zm_session_undeclare_querier(zm_session_t *s, uint32_t id) { return sender_remove(s, id, true); }
#endif
