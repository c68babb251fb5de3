/*
 * Liveliness: our tokens, declared to every peer (D_TOKEN) until undeclared or the session
 * closes; liveliness subscribers, told of tokens appearing (PUT) and going (DELETE); and
 * liveliness gets, an INTEREST in current tokens that peers answer with D_TOKENs closed by a
 * D_FINAL. A router tells only who asks: a client sends it an INTEREST per subscriber (future
 * tokens, and current ones too with history) and hears of its own tokens from it like of any
 * other. Peers push their tokens to each other unasked, so in peer mode our own tokens reach our
 * subscribers from here. Each peer's tokens are kept by id with their keys, within its
 * declaration bounds, so that an undeclaration or the peer's death can name them, and a new
 * subscriber's history is read from them as Rust reads its own.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

#if Z_FEATURE_LIVELINESS

/* ---- messages ------------------------------------------------------------------------------------ */

static void declare_init(zm_network_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_DECLARE;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
}

/* An INTEREST of ours in the tokens (and key expressions, as Rust asks) on key; Final: in none. */
static void interest_init(zm_network_msg_t *m, uint32_t id, uint8_t mode, const char *key, size_t len)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_INTEREST;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    zm_interest_t *it = &m->body.interest;
    it->id = id;
    it->mode = mode;
    if (mode != ZM_INTEREST_FINAL) {
        it->options = ZM_INTEREST_K | ZM_INTEREST_T | ZM_INTEREST_R;
        it->wire_expr.mapping = ZM_MAPPING_SENDER;
        it->wire_expr.has_suffix = true;
        it->wire_expr.suffix = zm_slice(key, len);
    }
}

#if ZM_LIVELINESS_SUBS || ZM_LIVELINESS_GET
/* Not inlined: the message is on the stack only while it is sent. */
static ZM_NOINLINE z_result_t interest_send(zm_peer_t *p, uint32_t id, uint8_t mode, const char *key, size_t len,
                                            bool flush)
{
    zm_network_msg_t m;
    interest_init(&m, id, mode, key, len);
    return zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, flush);
}
#endif

/*
 * Whether p tells us of tokens only when asked (an INTEREST): it is a router, or we are its
 * client (both pull models of Rust). Peers of a peer push their tokens to each other.
 */
static bool asked(const zm_peer_t *p)
{
    return p->t.remote_whatami == ZM_WAI_ROUTER || !zm_session_is_peer(p->s);
}

/* ---- liveliness subscribers: delivery ------------------------------------------------------------- */

/*
 * A token appeared (PUT) or went (DELETE) on key: each liveliness subscriber whose key
 * intersects it hears of it, or only subscriber `only` when it is not 0 (an answer to its own
 * interest). Callbacks run unlocked, each subscriber pinned meanwhile as zm_dispatch does. Not
 * inlined: its sample is on the stack only while a token comes or goes.
 */
static ZM_NOINLINE void lsubs_dispatch(zm_session_t *s, const char *key, size_t len, uint8_t kind, uint32_t only)
{
    zm_sample_t smp;
    memset(&smp, 0, sizeof(smp));
    smp.key = key;
    smp.key_len = len;
    smp.kind = kind;
    smp.priority = ZM_PRIO_DATA;
    smp.reliable = true;
    zm_cb_frame_t frame = {NULL, 0};
    bool framed = false;
    S_LOCK(s);
    zm_entity_t *sub = s->lsubs;
    while (sub != NULL) {
        if (sub->removed || (only != 0 && sub->id != only) ||
            !zm_keyexpr_intersects(sub->key, sub->key_len, key, len)) {
            sub = sub->next;
            continue;
        }
        sub->busy++;
        if (!framed) {
            frame.thread = zm_port_thread_self();
            framed = true;
        }
        zm_callback_enter(s, &frame);
        S_UNLOCK(s);
        sub->fn(&smp, sub->ctx);
        S_LOCK(s);
        zm_callback_leave(s, &frame);
        sub = zm_entity_unpin(s, &s->lsubs, sub);
    }
    S_UNLOCK(s);
}

#if ZM_LIVELINESS_SUBS
/* Whether liveliness subscriber id is still declared. */
static bool lsub_declared(zm_session_t *s, uint32_t id)
{
    S_LOCK(s);
    const zm_entity_t *sub = s->lsubs;
    while (sub != NULL && (sub->id != id || sub->removed)) {
        sub = sub->next;
    }
    S_UNLOCK(s);
    return sub != NULL;
}

/*
 * Our own tokens on key, each a PUT to subscriber `only` (0: to every one that matches): in peer
 * mode nobody else tells us of them. Each token is pinned while its PUT is delivered.
 */
static void tokens_to_lsubs(zm_session_t *s, const char *key, size_t len, uint32_t only)
{
    S_LOCK(s);
    zm_entity_t *tok = s->tokens;
    while (tok != NULL) {
        if (tok->removed || !zm_keyexpr_intersects(tok->key, tok->key_len, key, len)) {
            tok = tok->next;
            continue;
        }
        tok->busy++;
        S_UNLOCK(s);
        lsubs_dispatch(s, tok->key, tok->key_len, ZM_SAMPLE_PUT, only);
        S_LOCK(s);
        tok = zm_entity_unpin(s, &s->tokens, tok);
    }
    S_UNLOCK(s);
}

#endif /* ZM_LIVELINESS_SUBS */

/* ---- tokens ------------------------------------------------------------------------------------- */

z_result_t zm_session_declare_token(zm_session_t *s, const char *key, size_t len, uint32_t *id)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    ZM_TRY(zm_keyexpr_validate(key, len));
    zm_entity_t *tok = zm_entity_new(key, len);
    if (tok == NULL) {
        return ZM_E_NOMEM;
    }
    *id = zm_entity_add(s, &s->tokens, tok);
    zm_decl_broadcast(s, ZM_DECL_TOKEN, *id, key, len, 0);
    if (ZM_LIVELINESS_SUBS && zm_session_is_peer(s)) {
        lsubs_dispatch(s, key, len, ZM_SAMPLE_PUT, 0);
    }
    return Z_OK;
}

z_result_t zm_session_undeclare_token(zm_session_t *s, uint32_t id)
{
    S_LOCK(s);
    zm_entity_t *tok = s->tokens;
    while (tok != NULL && (tok->id != id || tok->removed)) {
        tok = tok->next;
    }
    if (tok == NULL) {
        S_UNLOCK(s);
        return Z_EINVAL;
    }
    tok->removed = true; /* no new peer hears of it from now on */
    tok->busy++;         /* its key names it below; the last pin frees it */
    S_UNLOCK(s);
    zm_decl_broadcast(s, ZM_UNDECL_TOKEN, id, NULL, 0, ZM_DECL_EXT_WIRE);
    if (ZM_LIVELINESS_SUBS && zm_session_is_peer(s)) {
        lsubs_dispatch(s, tok->key, tok->key_len, ZM_SAMPLE_DELETE, 0);
    }
    S_LOCK(s);
    (void)zm_entity_unpin(s, &s->tokens, tok);
    S_UNLOCK(s);
    return Z_OK;
}

/* Our tokens that intersect key (NULL: all) to p, each in the DECLARE m (header set by the caller). */
static z_result_t push_tokens(zm_session_t *s, zm_peer_t *p, const char *key, size_t len, zm_network_msg_t *m)
{
    z_result_t rc = Z_OK;
    S_LOCK(s);
    zm_entity_t *tok = s->tokens;
    while (tok != NULL && rc == Z_OK) {
        if (tok->removed || (key != NULL && !zm_keyexpr_intersects(tok->key, tok->key_len, key, len))) {
            tok = tok->next;
            continue;
        }
        tok->busy++; /* pinned while its declaration is sent unlocked */
        S_UNLOCK(s);
        zm_decl_fill(&m->body.declare.decl, ZM_DECL_TOKEN, tok->id, tok->key, tok->key_len);
        rc = zm_transport_send(zm_peer_tx(p), m, true, ZM_PRIO_CONTROL, false);
        S_LOCK(s);
        tok = zm_entity_unpin(s, &s->tokens, tok);
    }
    S_UNLOCK(s);
    return rc;
}

/*
 * The interests of our liveliness subscribers to a node that tells only when asked, just come
 * (a client's reconnect included): current and future tokens for each, since whatever it knows
 * is news to us. Each subscriber is pinned while its interest is sent unlocked.
 */
static z_result_t push_interests(zm_session_t *s, zm_peer_t *p, zm_network_msg_t *m)
{
    z_result_t rc = Z_OK;
    S_LOCK(s);
    zm_entity_t *sub = s->lsubs;
    while (sub != NULL && rc == Z_OK) {
        if (sub->removed) {
            sub = sub->next;
            continue;
        }
        sub->busy++;
        S_UNLOCK(s);
        interest_init(m, sub->id, ZM_INTEREST_CURRENT_FUTURE, sub->key, sub->key_len);
        rc = zm_transport_send(zm_peer_tx(p), m, true, ZM_PRIO_CONTROL, false);
        S_LOCK(s);
        sub = zm_entity_unpin(s, &s->lsubs, sub);
    }
    S_UNLOCK(s);
    return rc;
}

/* Not inlined: its message is on the stack only while our tokens and interests are sent. */
ZM_NOINLINE z_result_t zm_liveliness_push(zm_session_t *s, zm_peer_t *p)
{
    zm_network_msg_t m;
    declare_init(&m);
    z_result_t rc = push_tokens(s, p, NULL, 0, &m);
    if (ZM_LIVELINESS_SUBS && rc == Z_OK && asked(p)) {
        rc = push_interests(s, p, &m);
    }
    return rc;
}

/* ---- liveliness subscribers ---------------------------------------------------------------------- */

#if ZM_LIVELINESS_SUBS

static bool pin_asked(zm_peer_t *p, const void *arg)
{
    ZM_UNUSED(arg);
    return asked(p);
}

/* Sends interest id of mode on key to every node that tells of tokens only when asked. */
static void interests_broadcast(zm_session_t *s, uint32_t id, uint8_t mode, const char *key, size_t len)
{
    zm_pins_t pinned;
    zm_peers_pin_if(s, &pinned, pin_asked, NULL);
    for (size_t i = 0; i < pinned.n; i++) {
        z_result_t rc = interest_send(pinned.p[i], id, mode, key, len, !s->batching);
        if (rc != Z_OK) {
            zm_peer_send_failed(pinned.p[i], rc, "an interest could not be sent");
        }
    }
    zm_peers_unpin(&pinned);
}

/* A copy of the key of a token a peer told us of, for a history delivered unlocked. */
typedef struct zm_known {
    struct zm_known *next;
    size_t len;
    char key[];
} zm_known_t;

static bool pushes(const zm_peer_t *p) { return !asked(p); }

/*
 * s->lock held: copies of the keys of the tokens on key that the live peers pick picks pushed
 * to us, pushed onto *list. False when memory ran out before all were copied.
 */
static bool known_tokens(zm_session_t *s, const char *key, size_t len, bool (*pick)(const zm_peer_t *p),
                         zm_known_t **list)
{
    for (size_t i = 0; i < zm_slots(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state != PEER_LIVE || !pick(p)) {
            continue;
        }
        uint32_t pos = 0, id = 0;
        void *val = NULL;
        while (zm_idmap_next(&p->remote.tokens, &pos, &id, &val)) {
            const zm_rdecl_t *d = val;
            if (!zm_keyexpr_intersects(d->key, d->key_len, key, len)) {
                continue;
            }
            zm_known_t *k = zm_alloc(sizeof(*k) + d->key_len);
            if (k == NULL) {
                return false;
            }
            k->len = d->key_len;
            memcpy(k->key, d->key, d->key_len);
            k->next = *list;
            *list = k;
        }
    }
    return true;
}

/* Copies, under the lock, of the keys of the tokens on key that the peers pick picks pushed. */
static zm_known_t *known_copy(zm_session_t *s, const char *key, size_t len, bool (*pick)(const zm_peer_t *p))
{
    zm_known_t *list = NULL;
    S_LOCK(s);
    bool all = known_tokens(s, key, len, pick, &list);
    S_UNLOCK(s);
    if (!all) {
        ZM_LOG_W("no memory to copy every token known here: some are left out");
    }
    return list;
}

/*
 * A new subscriber's history, as far as it is known here: in peer mode our own tokens (nobody
 * else tells of them) and those peers and clients pushed to us, delivered without the lock. The
 * tokens of a node that tells only when asked come as answers to the subscriber's interest.
 */
static void history_deliver(zm_session_t *s, uint32_t id, const char *key, size_t len)
{
    if (zm_session_is_peer(s)) {
        tokens_to_lsubs(s, key, len, id);
    }
    zm_known_t *list = known_copy(s, key, len, pushes);
    while (list != NULL) {
        zm_known_t *k = list;
        list = k->next;
        lsubs_dispatch(s, k->key, k->len, ZM_SAMPLE_PUT, id);
        zm_free(k);
    }
}

z_result_t zm_session_declare_liveliness_subscriber(zm_session_t *s, const char *key, size_t len, bool history,
                                                    zm_sample_fn fn, zm_drop_fn drop, void *ctx, uint32_t *id)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (ZM_LIVELINESS_LATE) {
        atomic_store_explicit(&s->live_rx, &zm_live_rx, memory_order_release); /* before our interest goes */
    }
    ZM_TRY(zm_keyexpr_validate(key, len));
    if (fn == NULL) {
        return Z_EINVAL;
    }
    zm_entity_t *sub = zm_entity_new(key, len);
    if (sub == NULL) {
        return ZM_E_NOMEM;
    }
    sub->history = history;
    sub->fn = fn;
    sub->drop = drop;
    sub->ctx = ctx;
    *id = zm_entity_add(s, &s->lsubs, sub);
    interests_broadcast(s, *id, history ? ZM_INTEREST_CURRENT_FUTURE : ZM_INTEREST_FUTURE, key, len);
    if (history) {
        history_deliver(s, *id, key, len);
    }
    return Z_OK;
}

z_result_t zm_session_undeclare_liveliness_subscriber(zm_session_t *s, uint32_t id)
{
    bool remote;
    ZM_TRY(zm_entity_remove(s, &s->lsubs, id, &remote));
    interests_broadcast(s, id, ZM_INTEREST_FINAL, NULL, 0);
    return Z_OK;
}

/*
 * A token of p's. A future one (no interest id, or the initial interest 0) goes to every
 * subscriber it matches, unless its id is known already (a redeclaration, ignored as Rust
 * does). A current one answers the interest of one subscriber and goes to it alone; a node we
 * ask (asked()) gives it its real id (the interest goes on), others id 0 (their interest ends
 * there): only the former is kept, to name the token when it goes. The table changes under
 * s->lock, since histories read it from other threads; this thread alone changes it, so it
 * reads it unlocked.
 */
static z_result_t token_declared(zm_peer_t *p, const zm_declare_t *dm, const char *key, size_t len)
{
    zm_session_t *s = p->s;
    const zm_declaration_t *d = &dm->decl;
    bool current = dm->has_interest_id && dm->interest_id != 0;
    uint32_t only = current ? dm->interest_id : 0;
    if (current && !lsub_declared(s, only)) {
        return Z_OK; /* an answer nobody waits for any more */
    }
    bool known = zm_idmap_get(&p->remote.tokens, d->id) != NULL;
    if (!current && known) {
        return Z_OK;
    }
    if (!known && (!current || asked(p))) {
        zm_rdecl_t *stored = NULL, *old = NULL;
        S_LOCK(s);
        z_result_t rc = zm_rdecl_put(p, &p->remote.tokens, d->id, key, len, &stored, &old);
        S_UNLOCK(s);
        ZM_TRY(rc);
    }
    lsubs_dispatch(s, key, len, ZM_SAMPLE_PUT, only);
    return Z_OK;
}

/*
 * A token of p's went: its subscribers hear of it under the key it had. One never declared
 * here may still name its key in the undeclaration (Rust routers do, for tokens they never
 * declared on this link): that key is used; without one it is ignored.
 */
static z_result_t token_undeclared(zm_peer_t *p, const zm_declaration_t *d)
{
    S_LOCK(p->s);
    zm_rdecl_t *old = zm_idmap_remove(&p->remote.tokens, d->id);
    S_UNLOCK(p->s);
    if (old != NULL) {
        lsubs_dispatch(p->s, old->key, old->key_len, ZM_SAMPLE_DELETE, 0);
        zm_rdecl_release(p, old);
        return Z_OK;
    }
    if (!d->has_ext_wire || (d->wire_expr.scope == 0 && d->wire_expr.suffix.len == 0)) {
        ZM_LOG_D("an undeclaration of an unknown token: ignored");
        return Z_OK;
    }
    const char *key;
    size_t len;
    ZM_TRY(zm_remote_resolve(p, &d->wire_expr, &key, &len));
    lsubs_dispatch(p->s, key, len, ZM_SAMPLE_DELETE, 0);
    return Z_OK;
}

/* The tokens of a peer that went, waiting in s->gone to be reported. */
typedef struct zm_gone_tokens {
    struct zm_gone_tokens *next;
    zm_idmap_t tokens;
} zm_gone_tokens_t;

static bool token_free(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    ZM_UNUSED(ctx);
    zm_free(val);
    return true;
}

static void tokens_free(zm_idmap_t *map)
{
    zm_idmap_foreach(map, token_free, NULL);
    zm_idmap_free(map);
}

void zm_liveliness_peer_gone(zm_session_t *s, zm_peer_t *p)
{
    zm_gone_tokens_t *g = NULL;
    if (zm_idmap_len(&p->remote.tokens) > 0 && !s->closing) {
        g = zm_alloc(sizeof(*g));
        if (g == NULL) {
            ZM_LOG_W("no memory to report the tokens of a peer that went: they go unreported");
        }
    }
    if (g == NULL) {
        tokens_free(&p->remote.tokens);
        return;
    }
    g->tokens = p->remote.tokens;
    zm_idmap_init(&p->remote.tokens, g->tokens.seed);
    S_LOCK(s);
    g->next = s->gone;
    s->gone = g;
    S_UNLOCK(s);
}

void zm_liveliness_report_gone(zm_session_t *s)
{
    for (;;) {
        S_LOCK(s);
        zm_gone_tokens_t *g = s->gone;
        if (g != NULL) {
            s->gone = g->next;
        }
        S_UNLOCK(s);
        if (g == NULL) {
            return;
        }
        uint32_t pos = 0, id = 0;
        void *val = NULL;
        while (!s->closing && zm_idmap_next(&g->tokens, &pos, &id, &val)) {
            const zm_rdecl_t *d = val;
            lsubs_dispatch(s, d->key, d->key_len, ZM_SAMPLE_DELETE, 0);
        }
        tokens_free(&g->tokens);
        zm_free(g);
    }
}

#endif /* ZM_LIVELINESS_SUBS */

/* ---- liveliness gets --------------------------------------------------------------------------- */

#if ZM_LIVELINESS_GET

static void token_reply_init(zm_reply_in_t *r, const char *key, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->kind = ZM_REPLY_OK;
    r->sample.key = key;
    r->sample.key_len = len;
    r->sample.kind = ZM_SAMPLE_PUT;
    r->sample.priority = ZM_PRIO_DATA;
    r->sample.reliable = true;
}

/* Not inlined: the reply is on the stack only while our own token answers a get. */
static ZM_NOINLINE bool token_get_reply(zm_session_t *s, uint32_t id, const char *key, size_t len)
{
    zm_reply_in_t r;
    token_reply_init(&r, key, len);
    return zm_hub_token_get_reply(s, id, &r);
}

/*
 * Not inlined: its reply is on the stack only while a get's answer is handled, which is called
 * straight from the dispatch of messages, the receive path being deepest there.
 */
ZM_NOINLINE bool zm_liveliness_on_reply(zm_peer_t *p, const zm_declare_t *dm)
{
    if (dm->decl.kind != ZM_DECL_TOKEN || !dm->has_interest_id || dm->interest_id == 0) {
        return false;
    }
    zm_reply_in_t r;
    token_reply_init(&r, NULL, 0);
    z_result_t rc = zm_remote_resolve(p, &dm->decl.wire_expr, &r.sample.key, &r.sample.key_len);
    if (rc != Z_OK) {
        zm_bad_key(p, rc);
        return true;
    }
    return zm_hub_token_get_reply(p->s, dm->interest_id, &r);
}

void zm_liveliness_on_final(zm_peer_t *p, uint32_t interest_id)
{
    zm_hub_token_get_final(p->s, interest_id, p->index);
}

static bool is_client(const zm_peer_t *p) { return p->t.remote_whatami == ZM_WAI_CLIENT; }

/* Our own tokens on key, as replies to the get id: in peer mode nobody else tells of them. */
static void tokens_to_get(zm_session_t *s, uint32_t id, const char *key, size_t len)
{
    S_LOCK(s);
    zm_entity_t *tok = s->tokens;
    while (tok != NULL) {
        if (tok->removed || !zm_keyexpr_intersects(tok->key, tok->key_len, key, len)) {
            tok = tok->next;
            continue;
        }
        tok->busy++; /* pinned while its reply is delivered */
        S_UNLOCK(s);
        (void)token_get_reply(s, id, tok->key, tok->key_len);
        S_LOCK(s);
        tok = zm_entity_unpin(s, &s->tokens, tok);
    }
    S_UNLOCK(s);
}

#if ZM_LIVELINESS_SUBS
/* Nodes that are not asked: clients, and a multicast group's members (an interest sent to the
 * group would be answered by all, to all). What they pushed to us answers for them. */
static bool not_asked(const zm_peer_t *p) { return is_client(p) || zm_peer_is_member(p); }
#endif

/*
 * What this node knows answers the get id on key: our own tokens, and those of the nodes not
 * asked. Their replies are callbacks of s run by the application's call (a close from one only
 * begins).
 */
static void local_answers(zm_session_t *s, uint32_t id, const char *key, size_t len)
{
    zm_cb_frame_t frame = {NULL, zm_port_thread_self()};
    S_LOCK(s);
    zm_callback_enter(s, &frame);
    S_UNLOCK(s);
    tokens_to_get(s, id, key, len);
#if ZM_LIVELINESS_SUBS
    zm_known_t *list = known_copy(s, key, len, not_asked);
    while (list != NULL) {
        zm_known_t *k = list;
        list = k->next;
        (void)token_get_reply(s, id, k->key, k->len);
        zm_free(k);
    }
#endif
    S_LOCK(s);
    zm_callback_leave(s, &frame);
    S_UNLOCK(s);
}

/*
 * Routers and peers are asked (they answer a current INTEREST in tokens); clients are not: a
 * Rust client cannot answer one from the node it depends on. What clients pushed to us answers
 * for them, where it is kept (with liveliness subscribers).
 */
static bool ask_for_tokens(const zm_peer_t *p) { return !is_client(p); }

z_result_t zm_session_liveliness_get(zm_session_t *s, const char *key, size_t len, uint64_t timeout_ms,
                                     zm_reply_fn fn, zm_drop_fn drop, void *ctx, zm_cancel_t *cancel,
                                     uint32_t *id_out)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (ZM_LIVELINESS_LATE) {
        atomic_store_explicit(&s->live_rx, &zm_live_rx, memory_order_release); /* before our interest goes */
    }
    ZM_TRY(zm_keyexpr_validate(key, len));
    if (fn == NULL) {
        return Z_EINVAL;
    }
    zm_pins_t pinned;
    uint32_t id = 0;
    ZM_TRY(zm_hub_token_get_open(s, key, len, timeout_ms, fn, drop, ctx, ask_for_tokens, &pinned, cancel, &id));
    *id_out = id;
    /*
     * What is known here answers first, while the peers asked keep the get open: so when one was
     * asked, the get ends on the thread of the last answer, of the timeout or of the close, never
     * within this call (where a caller may hold a lock its drop takes), unless an interest
     * cannot be sent. A get that asks nobody ends here.
     */
    if (zm_session_is_peer(s)) {
        local_answers(s, id, key, len);
    }
    zm_hub_token_get_final(s, id, ZM_GET_WAIT_LOCAL);
    for (size_t i = 0; i < pinned.n; i++) {
        zm_peer_t *p = pinned.p[i];
        z_result_t rc = interest_send(p, id, ZM_INTEREST_CURRENT, key, len, true);
        if (rc != Z_OK) {
            zm_peer_send_failed(p, rc, "an interest could not be sent");
            zm_hub_token_get_final(s, id, p->index); /* no answer will come from it */
        }
    }
    zm_peers_unpin(&pinned);
    return Z_OK;
}

#endif /* ZM_LIVELINESS_GET */

/* ---- what peers send ---------------------------------------------------------------------------- */

z_result_t zm_liveliness_on_token(zm_peer_t *p, const zm_declare_t *dm)
{
#if ZM_LIVELINESS_SUBS
    const zm_declaration_t *d = &dm->decl;
    if (d->kind == ZM_DECL_TOKEN) {
        const char *key;
        size_t len;
        ZM_TRY(zm_remote_resolve(p, &d->wire_expr, &key, &len));
        return token_declared(p, dm, key, len); /* answers to our gets went by zm_liveliness_on_reply */
    }
    return token_undeclared(p, d);
#else
    ZM_UNUSED(p);
    ZM_UNUSED(dm);
    return Z_OK; /* nobody here listens for tokens */
#endif
}

#if ZM_LIVELINESS_LATE
const zm_live_rx_t zm_live_rx = {
    .on_token = zm_liveliness_on_token,
#if ZM_LIVELINESS_SUBS
    .peer_gone = zm_liveliness_peer_gone,
    .report_gone = zm_liveliness_report_gone,
#endif
#if ZM_LIVELINESS_GET
    .on_reply = zm_liveliness_on_reply,
    .on_final = zm_liveliness_on_final,
#endif
};
#endif

void zm_liveliness_interest(zm_peer_t *p, uint8_t options, const char *key, size_t len, zm_network_msg_t *m)
{
    if (options & ZM_INTEREST_T) {
        z_result_t rc = push_tokens(p->s, p, key, len, m);
        if (rc != Z_OK) {
            zm_peer_send_failed(p, rc, "a declaration could not be sent");
        }
    }
}

/*
 * A peer's D_TOKEN or U_TOKEN, or the answer of one of our liveliness gets (a D_TOKEN with its
 * interest id) and the D_FINAL that ends it. In a build that is only a client, what takes them
 * is reached through s->live_rx (ZM_LIVELINESS_LATE), set by the first liveliness subscriber or get.
 */
bool zm_liveliness_declared(zm_peer_t *p, const zm_declare_t *dm, z_result_t *rc)
{
    *rc = Z_OK;
    switch (dm->decl.kind) {
    case ZM_DECL_TOKEN:
    case ZM_UNDECL_TOKEN:
        if (ZM_LIVELINESS_GET && ZM_LIVE_CALL(p->s, on_reply, false, p, dm)) {
            return true; /* a liveliness get's answer */
        }
        *rc = ZM_LIVE_CALL(p->s, on_token, Z_OK, p, dm);
        return true;
    case ZM_DECL_FINAL:
        if (ZM_LIVELINESS_GET && dm->has_interest_id && dm->interest_id != 0) {
            ZM_LIVE_DO(p->s, on_final, p, dm->interest_id);
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* Takes p's tokens away into s->gone, for the next tick to report (zm_liveliness_report_gone). */
void zm_liveliness_gone(zm_session_t *s, zm_peer_t *p)
{
    if (ZM_LIVELINESS_SUBS) {
        ZM_LIVE_DO(s, peer_gone, s, p);
    }
}

void zm_liveliness_tick(zm_session_t *s, uint64_t now_ms)
{
    ZM_UNUSED(now_ms);
    if (ZM_LIVELINESS_SUBS) {
        ZM_LIVE_DO(s, report_gone, s);
    }
}

void zm_liveliness_close(zm_session_t *s)
{
    zm_entities_free_all(&s->tokens);
    if (ZM_LIVELINESS_SUBS) {
        ZM_LIVE_DO(s, report_gone, s); /* closing: freed unreported */
        zm_entities_free_all(&s->lsubs);
    }
}

#endif /* Z_FEATURE_LIVELINESS */
