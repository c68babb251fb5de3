/*
 * Declarations: key expressions, subscribers and publishers of this session, sent to every
 * peer when made and again to each new peer (then, to a peer, the D_FINAL of the implicit
 * initial interest, as Rust peers expect). Declarations travel as Rust sends them: on the
 * reliable Control channel with the DECLARE QoS (Control + Block).
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/internal.h"
#include "util/alloc.h"

zm_decl_t *zm_decl_new(uint32_t id, const char *key, size_t len)
{
    zm_decl_t *d = zm_alloc(sizeof(*d) + len);
    if (d != NULL) {
        d->next = NULL;
        d->id = id;
        d->key_len = len;
        memcpy(d->key, key, len);
    }
    return d;
}

void zm_decl_list_free(zm_decl_t **list)
{
    while (*list != NULL) {
        zm_decl_t *d = *list;
        *list = d->next;
        zm_free(d);
    }
}

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
    return zm_transport_send(&p->t, &m, true, ZM_PRIO_CONTROL, false);
}

static void decl_fill(zm_declaration_t *d, uint8_t kind, uint32_t id, const char *key, size_t len)
{
    memset(d, 0, sizeof(*d));
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
}

void zm_decl_broadcast(zm_session_t *s, const zm_declaration_t *d)
{
    zm_peer_t *pinned[ZM_PEERS_MAX];
    size_t n = zm_peers_pin(s, pinned, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        z_result_t r = send_decl(pinned[i], d, false);
        if (r == Z_OK && !s->batching) {
            r = zm_transport_flush(&pinned[i]->t);
        }
        if (r != Z_OK) {
            zm_peer_kill(pinned[i], ZM_CLOSE_GENERIC);
        }
    }
    zm_peers_unpin(s, pinned, n);
}

/*
 * Our declarations, queued in the new peer's batch under the lock and written after it. A
 * declaration racing with this push reaches the peer either here or by its own broadcast.
 */
z_result_t zm_decl_push_all(zm_session_t *s, zm_peer_t *p)
{
    zm_declaration_t d;
    z_result_t rc = Z_OK;
    zm_transport_set_batching(&p->t, true);
    S_LOCK(s);
    for (zm_decl_t *k = s->keys; k != NULL && rc == Z_OK; k = k->next) {
        decl_fill(&d, ZM_DECL_KEYEXPR, k->id, k->key, k->key_len);
        d.wire_expr.mapping = ZM_MAPPING_RECEIVER;
        rc = send_decl(p, &d, false);
    }
    for (zm_sub_t *sub = s->subs; sub != NULL && rc == Z_OK; sub = sub->next) {
        if (!sub->removed && sub->origin != ZM_LOCALITY_SESSION_LOCAL) {
            decl_fill(&d, ZM_DECL_SUBSCRIBER, sub->id, sub->key, sub->key_len);
            rc = send_decl(p, &d, false);
        }
    }
    if (rc == Z_OK && zm_admin_declaration(s, &d)) {
        rc = send_decl(p, &d, false);
    }
    bool batching = s->batching;
    S_UNLOCK(s);
    if (rc == Z_OK && p->t.remote_whatami != ZM_WAI_ROUTER) {
        decl_fill(&d, ZM_DECL_FINAL, 0, NULL, 0);
        rc = send_decl(p, &d, true); /* ends the implicit interest 0 */
    }
    zm_transport_set_batching(&p->t, batching);
    z_result_t flushed = zm_transport_flush(&p->t);
    return rc != Z_OK ? rc : flushed;
}

/* ---- key expressions ---------------------------------------------------------------------------- */

z_result_t zm_session_declare_keyexpr(zm_session_t *s, const char *key, size_t len, uint16_t *id)
{
    ZM_TRY(zm_keyexpr_validate(key, len));
    S_LOCK(s);
    for (zm_decl_t *k = s->keys; k != NULL; k = k->next) {
        if (k->key_len == len && memcmp(k->key, key, len) == 0) {
            *id = (uint16_t)k->id; /* already declared: share it */
            S_UNLOCK(s);
            return Z_OK;
        }
    }
    if (s->next_key_id == 0) {
        S_UNLOCK(s);
        return ZM_E_NO_SPACE; /* 65535 expr ids used up */
    }
    zm_decl_t *k = zm_decl_new(s->next_key_id, key, len);
    if (k == NULL) {
        S_UNLOCK(s);
        return ZM_E_NOMEM;
    }
    s->next_key_id++;
    k->next = s->keys;
    s->keys = k;
    *id = (uint16_t)k->id;
    S_UNLOCK(s);
    zm_declaration_t d;
    decl_fill(&d, ZM_DECL_KEYEXPR, k->id, key, len);
    d.wire_expr.mapping = ZM_MAPPING_RECEIVER;
    zm_decl_broadcast(s, &d); /* a peer that fails is dropped; the declaration stands */
    return Z_OK;
}

z_result_t zm_session_undeclare_keyexpr(zm_session_t *s, uint16_t id)
{
    S_LOCK(s);
    zm_decl_t **pp = &s->keys;
    while (*pp != NULL && (*pp)->id != id) {
        pp = &(*pp)->next;
    }
    zm_decl_t *k = *pp;
    if (k != NULL) {
        *pp = k->next;
    }
    S_UNLOCK(s);
    if (k == NULL) {
        return Z_EINVAL;
    }
    zm_free(k);
    zm_declaration_t d;
    decl_fill(&d, ZM_UNDECL_KEYEXPR, id, NULL, 0);
    zm_decl_broadcast(s, &d);
    return Z_OK;
}

/* ---- subscribers -------------------------------------------------------------------------------- */

z_result_t zm_session_declare_subscriber(zm_session_t *s, const char *key, size_t len, uint8_t origin,
                                         zm_sample_fn fn, zm_drop_fn drop, void *ctx, uint32_t *id)
{
    ZM_TRY(zm_keyexpr_validate(key, len));
    if (fn == NULL || origin > ZM_LOCALITY_REMOTE) {
        return Z_EINVAL;
    }
    zm_sub_t *sub = zm_alloc(sizeof(*sub) + len);
    if (sub == NULL) {
        return ZM_E_NOMEM;
    }
    memcpy(sub->key, key, len);
    sub->key_len = len;
    sub->origin = origin;
    sub->removed = false;
    sub->busy = 0;
    sub->fn = fn;
    sub->drop = drop;
    sub->ctx = ctx;
    S_LOCK(s);
    sub->id = s->next_id++;
    sub->next = s->subs;
    s->subs = sub;
    *id = sub->id;
    S_UNLOCK(s);
    if (origin != ZM_LOCALITY_SESSION_LOCAL) {
        zm_declaration_t d;
        decl_fill(&d, ZM_DECL_SUBSCRIBER, sub->id, key, len);
        zm_decl_broadcast(s, &d);
    }
    return Z_OK;
}

/* Set while this thread runs a subscriber callback: an undeclare from there must not wait. */
static _Thread_local unsigned in_callback;

static void sub_unlink(zm_session_t *s, zm_sub_t *sub)
{
    zm_sub_t **pp = &s->subs;
    while (*pp != NULL && *pp != sub) {
        pp = &(*pp)->next;
    }
    if (*pp == sub) {
        *pp = sub->next;
    }
}

z_result_t zm_session_undeclare_subscriber(zm_session_t *s, uint32_t id)
{
    S_LOCK(s);
    zm_sub_t *sub = s->subs;
    while (sub != NULL && (sub->id != id || sub->removed)) {
        sub = sub->next;
    }
    if (sub == NULL) {
        S_UNLOCK(s);
        return Z_EINVAL;
    }
    sub->removed = true;
    bool remote = sub->origin != ZM_LOCALITY_SESSION_LOCAL;
    /* after this returns, the callback runs no more: wait for the calls under way */
    while (sub->busy > 0 && in_callback == 0) {
#if Z_FEATURE_MULTI_THREAD
        S_WAIT(s, 1000u);
#endif
    }
    bool free_now = sub->busy == 0;
    if (free_now) {
        sub_unlink(s, sub);
    }
    S_UNLOCK(s);
    if (free_now) {
        if (sub->drop != NULL) {
            sub->drop(sub->ctx);
        }
        zm_free(sub);
    }
    if (remote) {
        zm_declaration_t d;
        decl_fill(&d, ZM_UNDECL_SUBSCRIBER, id, NULL, 0);
        zm_decl_broadcast(s, &d);
    }
    return Z_OK;
}

void zm_dispatch(zm_session_t *s, const zm_sample_t *smp, bool remote)
{
    S_LOCK(s);
    zm_sub_t *sub = s->subs;
    while (sub != NULL) {
        bool accepts = remote ? sub->origin != ZM_LOCALITY_SESSION_LOCAL : sub->origin != ZM_LOCALITY_REMOTE;
        if (!sub->removed && accepts && zm_keyexpr_intersects(sub->key, sub->key_len, smp->key, smp->key_len)) {
            sub->busy++;
            S_UNLOCK(s);
            in_callback++;
            sub->fn(smp, sub->ctx);
            in_callback--;
            S_LOCK(s);
            sub->busy--;
            zm_sub_t *next = sub->next;
            if (sub->busy == 0 && sub->removed) {
                /* undeclared from its own callback (or while it ran): the last caller frees it */
                sub_unlink(s, sub);
                S_UNLOCK(s);
                if (sub->drop != NULL) {
                    sub->drop(sub->ctx);
                }
                zm_free(sub);
                S_LOCK(s);
            }
            S_BROADCAST(s);
            sub = next;
            continue;
        }
        sub = sub->next;
    }
    S_UNLOCK(s);
}

void zm_subs_free_all(zm_session_t *s)
{
    while (s->subs != NULL) {
        zm_sub_t *sub = s->subs;
        s->subs = sub->next;
        if (sub->drop != NULL) {
            sub->drop(sub->ctx);
        }
        zm_free(sub);
    }
}

/* ---- publishers --------------------------------------------------------------------------------- */

z_result_t zm_session_declare_publisher(zm_session_t *s, const char *key, size_t len, uint32_t *id, uint16_t *key_id)
{
    ZM_TRY(zm_session_declare_keyexpr(s, key, len, key_id));
    zm_pub_t *p = zm_alloc(sizeof(*p));
    if (p == NULL) {
        return ZM_E_NOMEM;
    }
    S_LOCK(s);
    p->id = s->next_id++;
    p->key_id = *key_id;
    p->next = s->pubs;
    s->pubs = p;
    *id = p->id;
    S_UNLOCK(s);
    return Z_OK;
}

z_result_t zm_session_undeclare_publisher(zm_session_t *s, uint32_t id)
{
    S_LOCK(s);
    zm_pub_t **pp = &s->pubs;
    while (*pp != NULL && (*pp)->id != id) {
        pp = &(*pp)->next;
    }
    zm_pub_t *p = *pp;
    bool shared = false;
    if (p != NULL) {
        *pp = p->next;
        for (zm_pub_t *o = s->pubs; o != NULL; o = o->next) {
            shared |= o->key_id == p->key_id;
        }
    }
    S_UNLOCK(s);
    if (p == NULL) {
        return Z_EINVAL;
    }
    uint16_t key_id = p->key_id;
    zm_free(p);
    /* the key expression goes with its last publisher */
    return shared ? Z_OK : zm_session_undeclare_keyexpr(s, key_id);
}
