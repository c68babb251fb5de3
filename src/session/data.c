/*
 * Data: puts going out (to the router, or to each peer that declared a matching subscriber,
 * and to local subscribers), and everything a peer sends coming in, on its read thread: key
 * expressions resolved against the peer's or our own declarations, samples built in place
 * from the received batch and handed to the matching subscribers without a copy.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

/* Field by field rather than a memset of the whole struct, on every put: the body's parts are
 * read only where its flags say they are there (the payload: a PUT's, set by the caller). */
void zm_put_args_init(zm_put_args_t *a, const char *key, size_t key_len)
{
    a->key = key;
    a->key_len = key_len;
    a->key_id = 0;
    a->kind = ZM_SAMPLE_PUT;
    zm_put_t *b = &a->body;
    b->has_timestamp = false;
    b->has_encoding = false;
    b->exts = 0;
    b->payload = zm_slice(NULL, 0);
    b->unknown.n = 0;
    a->priority = ZM_PRIO_DATA;
    a->block = false;
    a->express = false;
    a->reliable = true;
    a->destination = ZM_LOCALITY_ANY;
}

#if Z_FEATURE_PUBLICATION
#if ZM_WRITE_FILTER && ZM_PUT_CACHE_SLOTS > 0
/* s->lock held: the hits of a key put without a declared key expression, from the cache, or
 * counted afresh into the slot least recently used. NULL when the key is too long to cache. */
static const zm_hits_t *put_cache_hits(zm_session_t *s, const char *key, size_t len)
{
    if (len > ZM_PUT_CACHE_KEY_MAX) {
        return NULL;
    }
    zm_put_cache_t *lru = &s->put_cache[0];
    uint32_t now = ++s->put_clock;
    if (now == 0) { /* the clock wrapped: start the ages again */
        for (size_t i = 0; i < ZM_PUT_CACHE_SLOTS; i++) {
            s->put_cache[i].used = s->put_cache[i].used != 0 ? 1u : 0u;
        }
        now = s->put_clock = 2;
    }
    for (size_t i = 0; i < ZM_PUT_CACHE_SLOTS; i++) {
        zm_put_cache_t *e = &s->put_cache[i];
        if (e->used != 0 && e->key_len == len && memcmp(e->key, key, len) == 0) {
            e->used = now;
            return &e->hits;
        }
        if (e->used < lru->used) {
            lru = e;
        }
    }
    lru->used = now;
    lru->key_len = (uint16_t)len;
    memcpy(lru->key, key, len);
    zm_hits_count(s, key, len, &lru->hits);
    return &lru->hits;
}
#endif

#if !ZM_WRITE_FILTER
/* A client sends everything to its router, which routes. */
static void pin_targets(zm_session_t *s, const zm_put_args_t *a, zm_pins_t *out)
{
    ZM_UNUSED(a);
    zm_peers_pin(s, out);
}
#else
/*
 * Pins the peers of a put on a declared key from the route kept for it, without s->lock: the
 * route holds while route_gen does not move, and every change of a put's targets moves it under
 * s->lock (S_ROUTES_CHANGED). A peer killed after the route was read moved it before its reaper
 * could see no pin: the pins taken here are checked against route_gen after they are counted,
 * so either the reaper sees them, or they see the change and are given back untouched.
 * False when there is no such route (the caller takes the lock and keeps one).
 */
static ZM_ALWAYS_INLINE bool pin_route(zm_session_t *s, uint16_t key_id, zm_pins_t *out)
{
    uint32_t gen = zm_atomic_load(&s->route_gen);
    const zm_route_t *r = &s->routes[key_id % ZM_ROUTES];
    if (zm_atomic_load(&r->gen) != gen) {
        return false;
    }
    uint32_t kp = zm_atomic_load(&r->key_peers);
    if (kp >> 16 != key_id) {
        return false;
    }
    /* its set bits alone, lowest first: slot indexes below zm_slots_pin(s), as the route was made */
    size_t n = 0;
    for (uint32_t bits = kp & 0xffffu; bits != 0 && n < ZM_PEERS_PIN; bits &= bits - 1u) {
        zm_peer_t *p = &s->peers[__builtin_ctz(bits)];
        zm_atomic_inc(&p->refs);
        out->p[n++] = p;
    }
    out->n = n;
    if (zm_atomic_load(&s->route_gen) != gen) {
        zm_peers_unpin(out);
        return false;
    }
    return true;
}

/*
 * Pins the peers a put must reach: every router (it routes), every peer whose subscribers we do
 * not know yet (its initial declarations end with D_FINAL of interest 0; clients never send
 * one), and every peer with a subscriber that intersects the key. The counts come from the
 * key's declaration or the put cache, kept current as declarations change: no scan here. With
 * threads, a declared key's targets are kept as its route, which later puts read without the
 * lock.
 */
static void pin_targets(zm_session_t *s, const zm_put_args_t *a, zm_pins_t *out)
{
    bool routed = Z_FEATURE_MULTI_THREAD && ZM_PEERS_PIN <= ZM_ROUTE_SLOTS && a->key_id != 0;
    if (routed && pin_route(s, a->key_id, out)) {
        return;
    }
    size_t n = 0;
    uint32_t peers = 0;
    S_LOCK(s);
    const zm_hits_t *hits = NULL;
    zm_hits_t counted;
    if (a->key_id != 0) {
        const zm_lkey_t *k = zm_idmap_get(&s->keys, a->key_id);
        hits = k != NULL ? &k->hits : NULL;
    }
#if ZM_PUT_CACHE_SLOTS > 0
    if (hits == NULL) {
        hits = put_cache_hits(s, a->key, a->key_len);
    }
#endif
    if (hits == NULL) {
        zm_hits_count(s, a->key, a->key_len, &counted);
        hits = &counted;
    }
    /* the group among them: it never declares (it is not a node), so everything goes there */
    for (size_t i = 0; i < zm_slots_pin(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && (p->t.remote_whatami != ZM_WAI_PEER || !p->declared || hits->n[i] > 0)) {
            zm_atomic_inc_relaxed(&p->refs);
            out->p[n++] = p;
            peers |= 1u << (i % ZM_ROUTE_SLOTS);
        }
    }
    if (routed) { /* the key first: a put that reads this gen finds the key its peers are for */
        zm_route_t *r = &s->routes[a->key_id % ZM_ROUTES];
        zm_atomic_store(&r->key_peers, (uint32_t)a->key_id << 16 | peers);
        zm_atomic_store(&r->gen, zm_atomic_load(&s->route_gen));
    }
    S_UNLOCK(s);
    out->n = n;
}
#endif

/* The PUSH of a, built from a's parts around its body, which it borrows. */
static void push_of(const zm_put_args_t *a, zm_push_ref_t *p)
{
    p->wire_expr.scope = a->key_id;
    p->wire_expr.mapping = ZM_MAPPING_SENDER;
    p->wire_expr.has_suffix = a->key_id == 0;
    p->wire_expr.suffix = a->key_id == 0 ? zm_slice(a->key, a->key_len) : zm_slice(NULL, 0);
    p->qos = zm_qos_of(a->priority, a->block, a->express);
    p->body_id = a->kind == ZM_SAMPLE_PUT ? ZM_MID_PUT : ZM_MID_DEL;
    p->body = &a->body;
}

/* Sends a's PUSH to the pinned peers, encoded by each transport straight into its batch. */
static z_result_t push_send(const zm_put_args_t *a, const zm_pins_t *pinned)
{
    z_result_t rc = Z_OK;
    zm_push_ref_t p;
    push_of(a, &p);
    for (size_t i = 0; i < pinned->n && i < ZM_PEERS_PIN; i++) { /* the bound: a client's is one peer */
        zm_peer_t *peer = pinned->p[i];
        z_result_t r;
        if (Z_FEATURE_MULTICAST_TRANSPORT && !Z_FEATURE_MULTICAST_DECLARATIONS && zm_peer_is_group(peer) &&
            a->key_id != 0) {
            /* a multicast group, where no id is declared, gets the full key instead */
            zm_push_ref_t full = p;
            full.wire_expr.scope = 0;
            full.wire_expr.has_suffix = true;
            full.wire_expr.suffix = zm_slice(a->key, a->key_len);
            r = zm_transport_push(&peer->t, &full, a->reliable, a->priority, a->express);
        } else {
            r = zm_transport_push(&peer->t, &p, a->reliable, a->priority, a->express);
        }
        if (r != Z_OK) {
            zm_peer_send_failed(peer, r, "it does not take what we send");
            rc = r;
        }
    }
    return rc;
}

/* The result of a put sent with rc to the pinned peers: a client's router is its only peer, and
 * without it (gone, and not coming back) nothing was sent. */
static z_result_t put_result(const zm_session_t *s, const zm_pins_t *pinned, z_result_t rc)
{
    if (pinned->n == 0 && !zm_session_is_peer(s) && !(Z_FEATURE_AUTO_RECONNECT && s->cfg.auto_reconnect)) {
        return ZM_E_CLOSED;
    }
    return rc;
}

/* Pins a's targets and sends them a's PUSH. Not inlined: the pins and the message are on the stack
 * only while they are sent, not while a put_local that follows delivers. */
static ZM_NOINLINE z_result_t put_remote(zm_session_t *s, const zm_put_args_t *a)
{
    zm_pins_t pinned;
    pin_targets(s, a, &pinned);
    z_result_t rc = push_send(a, &pinned);
    zm_peers_unpin(&pinned);
    return put_result(s, &pinned, rc);
}

/* A session's own subscribers take its puts only in a build with local subscribers, as in
 * zenoh-pico: without them, nothing is delivered locally and none of this is linked. */
#if Z_FEATURE_SUBSCRIPTION && Z_FEATURE_LOCAL_SUBSCRIBER
static ZM_NOINLINE void put_local(zm_session_t *s, const zm_put_args_t *a)
{
    zm_sample_t smp;
    zm_sample_from_args(&smp, a);
    zm_dispatch(s, &smp, false, NULL);
}
#endif

z_result_t zm_session_put(zm_session_t *s, const zm_put_args_t *a)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    /* the API checked them already, where the user's options became a's fields */
    ZM_ASSERT(a->key != NULL && a->key_len > 0 && a->priority <= ZM_PRIO_BACKGROUND &&
              a->priority != ZM_PRIO_CONTROL && a->kind <= ZM_SAMPLE_DELETE && a->destination <= ZM_LOCALITY_REMOTE);
    ZM_ASSERT(a->body.unknown.n == 0 && (!a->body.has_encoding || !zm_encoding_is_empty(&a->body.encoding)));
    ZM_ASSERT(ZM_UNSTABLE_API || (a->body.exts & ZM_PUT_EXT_SOURCE) == 0); /* only the unstable API gives one */
    z_result_t rc = Z_OK;
    /* only the options of a build with local subscribers choose where a put goes */
    ZM_ASSERT(Z_FEATURE_LOCAL_SUBSCRIBER || a->destination == ZM_LOCALITY_ANY);
    if (!Z_FEATURE_LOCAL_SUBSCRIBER || a->destination != ZM_LOCALITY_SESSION_LOCAL) {
        rc = put_remote(s, a);
    }
#if Z_FEATURE_SUBSCRIPTION && Z_FEATURE_LOCAL_SUBSCRIBER
    /* the count, kept as subscribers come and go, spares a put the dispatch when there is none */
    if (a->destination != ZM_LOCALITY_REMOTE && zm_atomic_load_relaxed(&s->subs_declared) != 0) {
        put_local(s, a);
    }
#endif
    return rc;
}

#if ZM_PUT_HEAD
void zm_session_put_head_make(const zm_put_args_t *a, uint8_t head[ZM_PUT_HEAD_SIZE])
{
    ZM_ASSERT(a->key_id != 0 && a->kind == ZM_SAMPLE_PUT && a->body.payload.len == 0 && !a->body.has_timestamp &&
              a->body.exts == 0);
    memset(head, 0, ZM_PUT_HEAD_SIZE);
    zm_push_ref_t p;
    push_of(a, &p);
    size_t len;
    if (a->destination == ZM_LOCALITY_SESSION_LOCAL || zm_push_head_encode(head + ZM_PUT_HEAD_PUSH, &p, &len) != Z_OK) {
        return;
    }
    head[0] = (uint8_t)len;
    head[1] = p.qos;
    head[2] = (uint8_t)((a->reliable ? ZM_PUT_HEAD_RELIABLE : 0u) |
                        (a->destination == ZM_LOCALITY_REMOTE ? ZM_PUT_HEAD_REMOTE : 0u));
}

/*
 * The targets are pinned as zm_session_put pins them: the route kept for the key (pin_route), or
 * a client's router; with neither, and where a multicast group among them must be sent the full
 * key, the put goes back to zm_session_put, which has the key. A PUSH by its head holds no field
 * to fill per peer: every unicast peer was told the key id.
 */
bool zm_session_put_head(zm_session_t *s, uint16_t key_id, const uint8_t *head, zm_slice_t payload, z_result_t *rc)
{
    ZM_ASSERT(key_id != 0 && head[0] != 0 && head[0] <= ZM_PUSH_HEAD_MAX);
    if (s->closing) {
        *rc = Z_ESESSION_CLOSED;
        return true;
    }
#if Z_FEATURE_SUBSCRIPTION && Z_FEATURE_LOCAL_SUBSCRIBER
    if ((head[2] & ZM_PUT_HEAD_REMOTE) == 0 && zm_atomic_load_relaxed(&s->subs_declared) != 0) {
        return false; /* delivered here too */
    }
#endif
    if (!zm_fits_u32(payload.len)) {
        return false; /* refused there */
    }
    zm_pins_t pinned;
#if ZM_WRITE_FILTER
    if (!Z_FEATURE_MULTI_THREAD || ZM_PEERS_PIN > ZM_ROUTE_SLOTS || !pin_route(s, key_id, &pinned)) {
        return false;
    }
#else
    zm_peers_pin(s, &pinned);
#endif
    /* the group is the last pinned: its slot follows the unicast ones */
    if (Z_FEATURE_MULTICAST_TRANSPORT && !Z_FEATURE_MULTICAST_DECLARATIONS && pinned.n > 0 &&
        zm_peer_is_group(pinned.p[pinned.n - 1u])) {
        zm_peers_unpin(&pinned);
        return false;
    }
    zm_push_ref_t p;
    p.qos = head[1];
    p.body = NULL;
    p.head = head + ZM_PUT_HEAD_PUSH;
    p.head_len = head[0];
    p.payload = payload;
    bool reliable = (head[2] & ZM_PUT_HEAD_RELIABLE) != 0;
    bool express = (p.qos & ZM_QOS_EXPRESS) != 0;
    size_t n = pinned.n < ZM_PEERS_PIN ? pinned.n : ZM_PEERS_PIN; /* the bound: a client's is one peer */
    z_result_t r = Z_OK;
    for (size_t i = 0; i < n; i++) { /* each peer unpinned once sent to */
        zm_peer_t *peer = pinned.p[i];
        z_result_t sent = zm_transport_push(&peer->t, &p, reliable, ZM_QOS_PRIO(p.qos), express);
        if (sent != Z_OK) {
            zm_peer_send_failed(peer, sent, "it does not take what we send");
            r = sent;
        }
        zm_peer_unpin_inline(peer);
    }
    *rc = put_result(s, &pinned, r);
    return true;
}
#endif
#endif /* Z_FEATURE_PUBLICATION */

static z_result_t batch_each(zm_session_t *s, bool on, bool flush)
{
    zm_pins_t pinned;
    zm_peers_pin(s, &pinned);
    z_result_t rc = Z_OK;
    for (size_t i = 0; i < pinned.n; i++) {
        zm_transport_set_batching(&pinned.p[i]->t, on);
        if (flush) {
            z_result_t r = zm_transport_flush(&pinned.p[i]->t);
            rc = r != Z_OK ? r : rc;
        }
    }
    zm_peers_unpin(&pinned);
    return rc;
}

z_result_t zm_session_batch_start(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (s->batching) {
        return Z_EGENERIC;
    }
    s->batching = true;
    return batch_each(s, true, false);
}

z_result_t zm_session_batch_flush(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    return batch_each(s, s->batching, true);
}

z_result_t zm_session_batch_stop(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    s->batching = false;
    return batch_each(s, false, true);
}

/* ---- receiving ---------------------------------------------------------------------------------- */

#if Z_FEATURE_SUBSCRIPTION
/* Not inlined: its sample would sit in the frame of every message received, pushes or not. */
static ZM_NOINLINE void on_push(zm_peer_t *p, const zm_network_msg_t *m, bool reliable)
{
    const zm_push_t *push = &m->body.push;
    zm_sample_t smp; /* every field is set below: the key, the QoS, then the body's */
    z_result_t rc = zm_remote_resolve(p, &push->wire_expr, &smp.key, &smp.key_len);
    if (rc != Z_OK) {
        zm_bad_key(p, rc);
        return;
    }
    uint8_t qos = (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT;
    smp.priority = ZM_QOS_PRIO(qos);
    smp.block = (qos & ZM_QOS_BLOCK) != 0;
    smp.express = (qos & ZM_QOS_EXPRESS) != 0;
    smp.reliable = reliable;
    zm_sample_from_body(&smp, push->body_id, &push->body.put);
    zm_dispatch(p->s, &smp, true, zm_remote_match_memo(p, &push->wire_expr));
}
#endif

/* A build without queryables answers every query with its final response alone. */
static void on_request(zm_peer_t *p, const zm_network_msg_t *req)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE_FINAL;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = (req->ext.present & ZM_NET_EXT_QOS) ? req->ext.qos : ZM_QOS_REQUEST;
    m.body.response_final.rid = req->body.request.rid;
    zm_peer_send(p, &m, ZM_QOS_PRIO(m.ext.qos), true);
}

void zm_session_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    ZM_UNUSED(t);
    ZM_UNUSED(reliable);
    zm_peer_t *p = ctx;
    ZM_UNUSED(p); /* a publisher-only client takes nothing from what comes */
    if (ZM_PEER_ACTIVITY) {
        atomic_store_explicit(&p->active, true, memory_order_relaxed);
    }
    /* the transport hands out only what the build decodes (proto/core.h) */
    switch (m->id) {
#if Z_FEATURE_SUBSCRIPTION
    case ZM_MID_N_PUSH:
        on_push(p, m, reliable);
        break;
#endif
    case ZM_MID_N_DECLARE:
        if (ZM_REMOTE_DECLS) {
            zm_hub_on_declare(p, &m->body.declare);
        }
        break;
    case ZM_MID_N_INTEREST:
        if (ZM_DECODE_INTEREST) {
            zm_hub_on_interest(p, &m->body.interest);
        }
        break;
    case ZM_MID_N_REQUEST:
        if (Z_FEATURE_QUERYABLE) {
            zm_query_on_request(p, m);
        } else if (ZM_DECODE_REQUEST) {
            on_request(p, m);
        }
        break;
    case ZM_MID_N_RESPONSE:
        if (Z_FEATURE_QUERY) {
            zm_query_on_response(p, m);
        }
        break;
    case ZM_MID_N_RESPONSE_FINAL:
        if (Z_FEATURE_QUERY) {
            zm_query_on_response_final(p, m);
        }
        break;
    default:
        break; /* network OAM */
    }
}
