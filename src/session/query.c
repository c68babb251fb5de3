/*
 * Queries. Our queryables answer the requests peers send (and, with Z_FEATURE_LOCAL_QUERYABLE,
 * our own gets): each matching queryable's callback runs on the thread that received the
 * request, may reply at once or keep the query (zm_query_retain) to reply later from anywhere,
 * and the final response goes when the last holder lets go. Our gets go, as Rust routes them, to
 * routers and to the peers whose queryables may answer (get_asks), and wait in s->gets, by
 * request id, for a final response from every peer they went to, or for their deadline: a peer
 * that declared nothing the get asks for is not waited for, however it behaves. Replies are
 * consolidated on the way as Rust does it (none, monotonic, latest), within a budget of kept
 * bytes per get (ZM_GET_KEPT_BYTES) and the session's account (ZM_GETS_KEPT_BYTES for all its
 * gets: transport/account.h): Rust's latest keeps every reply until the end, here a reply past the
 * budget is given at once and its key then consolidated as monotonic (Rust's other mode), so
 * that nothing is lost, no reply older than one given goes through, and no peer can make a get
 * hold more than its budget. A get's callback never runs after its drop, which runs exactly once.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

#if Z_FEATURE_QUERY || Z_FEATURE_QUERYABLE

bool zm_params_have(zm_slice_t params, const char *name)
{
    size_t nlen = strlen(name);
    const char *p = (const char *)params.ptr;
    size_t i = 0;
    while (i < params.len) {
        size_t end = i;
        while (end < params.len && p[end] != ';' && p[end] != '&') {
            end++;
        }
        size_t klen = 0;
        while (i + klen < end && p[i + klen] != '=') {
            klen++;
        }
        if (klen == nlen && memcmp(p + i, name, nlen) == 0) {
            return true;
        }
        i = end + 1;
    }
    return false;
}

#endif

#if Z_FEATURE_QUERY && Z_FEATURE_QUERYABLE
static void get_local_final(zm_session_t *s, uint32_t rid);
#endif
#if Z_FEATURE_QUERY
#if Z_FEATURE_LOCAL_QUERYABLE
static z_result_t get_local_reply(zm_session_t *s, const zm_query_route_t *r, const zm_reply_args_t *a);
#endif
#endif

/* ==== queryables ==================================================================================== */

#if Z_FEATURE_QUERYABLE

/* Pins the peer of a route if it is still the one the request came from; NULL otherwise. */
static zm_peer_t *route_pin(zm_session_t *s, const zm_query_route_t *r)
{
    if (r->peer >= zm_slots(s)) {
        return NULL;
    }
    zm_peer_t *p = &s->peers[r->peer];
    S_LOCK(s);
    bool same = p->state == PEER_LIVE && p->gen == r->gen;
    if (same) {
        zm_atomic_inc_relaxed(&p->refs);
    }
    S_UNLOCK(s);
    return same ? p : NULL;
}

struct zm_query_rec {
    atomic_uint refs;
    struct zm_query_rec *next_ended; /* on a dispatch's list (zm_query_in_t.ended) once released */
    zm_query_route_t route;
    char key[];
};

static ZM_NOINLINE void send_final(zm_peer_t *p, uint32_t rid, uint8_t qos)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE_FINAL;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = qos;
    m.body.response_final.rid = rid;
    zm_peer_send(p, &m, ZM_QOS_PRIO(qos), false);
}

/* The end of a query: its final response, to the peer (if still there) or to our own get. */
static void route_final(zm_session_t *s, const zm_query_route_t *r)
{
#if Z_FEATURE_QUERY
    if (r->peer == ZM_ROUTE_LOCAL) {
        get_local_final(s, r->rid);
        return;
    }
#endif
    zm_peer_t *p = route_pin(s, r);
    if (p != NULL) {
        send_final(p, r->rid, r->qos);
        zm_peer_unpin(p);
    }
}

zm_query_rec_t *zm_query_retain(zm_query_in_t *q)
{
    if (q->rec == NULL) {
        zm_query_rec_t *rec = zm_alloc(sizeof(*rec) + q->key_len);
        if (rec == NULL) {
            return NULL;
        }
        atomic_init(&rec->refs, 1u); /* the callback's, ended by the dispatch */
        rec->next_ended = NULL;
        rec->route = q->route;
        memcpy(rec->key, q->key, q->key_len);
        rec->route.key = rec->key;
        q->rec = rec;
    }
    atomic_fetch_add_explicit(&q->rec->refs, 1u, memory_order_relaxed);
    return q->rec;
}

const zm_query_route_t *zm_query_rec_route(const zm_query_rec_t *rec) { return &rec->route; }

void zm_query_rec_unref_not_last(zm_query_rec_t *rec)
{
    unsigned before = atomic_fetch_sub_explicit(&rec->refs, 1u, memory_order_relaxed);
    ZM_ASSERT(before > 1u);
    ZM_UNUSED(before);
}

zm_query_rec_t *zm_query_rec_ref(zm_query_rec_t *rec)
{
    atomic_fetch_add_explicit(&rec->refs, 1u, memory_order_relaxed);
    return rec;
}

/* The end of a record nobody holds any more: its final response (unless s is gone), then free. */
/* Frees rec, then sends its final response: once the querier learns the end, nothing is held here. */
static void rec_end(zm_session_t *s, zm_query_rec_t *rec)
{
    zm_query_route_t route = rec->route;
    route.key = NULL; /* it lived in rec; the final response needs no key */
    zm_free(rec);
    if (s != NULL && !s->closing) {
        route_final(s, &route);
    }
}

void zm_query_release(zm_session_t *s, zm_query_rec_t *rec)
{
    if (atomic_fetch_sub_explicit(&rec->refs, 1u, memory_order_acq_rel) == 1u) {
        rec_end(s, rec);
    }
}

void zm_query_release_during(zm_query_in_t *q, zm_query_rec_t *rec)
{
    if (atomic_fetch_sub_explicit(&rec->refs, 1u, memory_order_acq_rel) == 1u) {
        rec->next_ended = q->ended;
        q->ended = rec;
    }
}

/* Ends the records released during a dispatch (zm_query_release_during). */
static void ended_end(zm_session_t *s, zm_query_rec_t *list)
{
    while (list != NULL) {
        zm_query_rec_t *next = list->next_ended;
        rec_end(s, list);
        list = next;
    }
}

z_result_t zm_session_declare_queryable(zm_session_t *s, const char *key, size_t len, bool complete, uint8_t origin,
                                        zm_query_fn fn, zm_drop_fn drop, void *ctx, uint32_t *id)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    ZM_TRY(zm_keyexpr_validate(key, len));
    if (fn == NULL || origin > ZM_LOCALITY_REMOTE) {
        return Z_EINVAL;
    }
    zm_entity_t *q = zm_entity_new(key, len);
    if (q == NULL) {
        return ZM_E_NOMEM;
    }
    q->origin = origin;
    q->complete = complete;
    q->qfn = fn;
    q->drop = drop;
    q->ctx = ctx;
    *id = zm_entity_add(s, &s->qbls, q);
    if (origin != ZM_LOCALITY_SESSION_LOCAL) {
        zm_decl_broadcast(s, ZM_DECL_QUERYABLE, *id, key, len, ZM_DECL_QBL_INFO | (complete ? ZM_DECL_QBL_COMPLETE : 0u));
    }
    zm_hub_changed(s); /* our queriers may match it */
    return Z_OK;
}

z_result_t zm_session_undeclare_queryable(zm_session_t *s, uint32_t id)
{
    bool remote;
    ZM_TRY(zm_entity_remove(s, &s->qbls, id, &remote));
    if (remote) {
        zm_decl_broadcast(s, ZM_UNDECL_QUERYABLE, id, NULL, 0, ZM_DECL_EXT_WIRE);
    }
    zm_hub_changed(s);
    return Z_OK;
}

/* Our queryables that intersect key (NULL: all) to p, each in the DECLARE m (its header set by the caller). */
static z_result_t push_queryables(zm_session_t *s, zm_peer_t *p, const char *key, size_t len, zm_network_msg_t *m)
{
    z_result_t rc = Z_OK;
    S_LOCK(s);
    zm_entity_t *q = s->qbls;
    while (q != NULL && rc == Z_OK) {
        if (q->removed || q->origin == ZM_LOCALITY_SESSION_LOCAL ||
            (key != NULL && !zm_keyexpr_intersects(q->key, q->key_len, key, len))) {
            q = q->next;
            continue;
        }
        q->busy++; /* pinned like a callback while its declaration is sent unlocked */
        S_UNLOCK(s);
        zm_declaration_t *d = &m->body.declare.decl;
        zm_decl_fill(d, ZM_DECL_QUERYABLE, q->id, q->key, q->key_len);
        d->has_qbl_info = true;
        d->qbl_complete = q->complete;
        rc = zm_transport_send(zm_peer_tx(p), m, true, ZM_PRIO_CONTROL, false);
        S_LOCK(s);
        q = zm_entity_unpin(s, &s->qbls, q);
    }
    S_UNLOCK(s);
    return rc;
}

/*
 * Runs the callbacks of the queryables that answer q: those that accept its origin and whose
 * key intersects its key (or, for target ALL_COMPLETE, complete ones whose key includes it).
 */
static void qbls_dispatch(zm_session_t *s, zm_query_in_t *q, uint8_t target, bool remote)
{
    q->rec = NULL;
    q->ended = NULL;
    zm_cb_frame_t frame = {NULL, 0};
    bool framed = false;
    S_LOCK(s);
    zm_entity_t *e = s->qbls;
    while (e != NULL) {
        bool accepts = remote ? e->origin != ZM_LOCALITY_SESSION_LOCAL : e->origin != ZM_LOCALITY_REMOTE;
        bool answers = target == ZM_TARGET_ALL_COMPLETE
                           ? e->complete && zm_keyexpr_includes(e->key, e->key_len, q->key, q->key_len)
                           : zm_keyexpr_intersects(e->key, e->key_len, q->key, q->key_len);
        if (e->removed || !accepts || !answers) {
            e = e->next;
            continue;
        }
        e->busy++;
        if (!framed) {
            frame.thread = zm_port_thread_self();
            framed = true;
        }
        zm_callback_enter(s, &frame);
        S_UNLOCK(s);
        q->route.eid = e->id;
        e->qfn(q, e->ctx);
        S_LOCK(s);
        zm_callback_leave(s, &frame);
        e = zm_entity_unpin(s, &s->qbls, e);
    }
    S_UNLOCK(s);
}

/*
 * Ends a query whose callbacks ran: now (its final response) unless one of them kept it, else
 * when the last one kept lets go; then the queries its callbacks let go of (ended).
 */
static void query_end(zm_session_t *s, zm_query_rec_t *rec, const zm_query_route_t *route, zm_query_rec_t *ended)
{
    if (rec != NULL) {
        zm_query_release(s, rec);
    } else {
        route_final(s, route);
    }
    ended_end(s, ended);
}

static void query_from_msg(zm_query_in_t *q, const zm_query_t *qm)
{
    q->parameters = qm->has_parameters ? qm->parameters : zm_slice(NULL, 0);
    q->has_body = (qm->exts & ZM_QUERY_EXT_BODY) != 0;
    q->payload = qm->body_payload;
    q->encoding = qm->body_encoding;
    q->has_attachment = (qm->exts & ZM_QUERY_EXT_ATTACHMENT) != 0;
    q->attachment = qm->attachment;
    q->has_source = (qm->exts & ZM_QUERY_EXT_SOURCE) != 0;
    q->source = qm->source;
}

/*
 * Not inlined: the query is on the stack only while our queryables answer, not while the admin
 * space does nor while the final response is sent. Returns the record a callback kept, or NULL,
 * and in *ended the records the callbacks let go of.
 */
static ZM_NOINLINE zm_query_rec_t *request_answer(zm_peer_t *p, const zm_network_msg_t *m, const char *key,
                                                  size_t len, zm_query_rec_t **ended)
{
    const zm_request_t *rq = &m->body.request;
    zm_query_in_t q;
    memset(&q, 0, sizeof(q));
    q.key = key;
    q.key_len = len;
    query_from_msg(&q, &rq->query);
    q.route.peer = p->index;
    q.route.gen = p->gen;
    q.route.rid = rq->rid;
    q.route.qos = (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT;
    q.route.any_key = zm_params_have(q.parameters, "_anyke");
    q.route.key = key;
    q.route.key_len = (uint16_t)len;
    uint8_t target = (m->ext.present & ZM_NET_EXT_TARGET) ? m->ext.target : ZM_TARGET_BEST_MATCHING;
    qbls_dispatch(p->s, &q, target, true);
    *ended = q.ended;
    return q.rec;
}

/* Not inlined: what ends the request stays off the stack of the admin space's answer. */
static ZM_NOINLINE void request_finish(zm_peer_t *p, const zm_network_msg_t *m, const char *key, size_t len)
{
    uint8_t qos = (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT;
    zm_query_route_t route = {p->index, p->gen, m->body.request.rid, 0, qos, false, 0, NULL};
    zm_query_rec_t *ended = NULL;
    zm_query_rec_t *rec = request_answer(p, m, key, len, &ended);
    query_end(p->s, rec, &route, ended);
}

void zm_query_on_request(zm_peer_t *p, const zm_network_msg_t *m)
{
    const zm_request_t *rq = &m->body.request;
    const char *key;
    size_t len;
    z_result_t rc = zm_remote_resolve(p, &rq->wire_expr, &key, &len);
    if (rc != Z_OK) {
        zm_bad_key(p, rc);
        if (rc == ZM_E_DECL_UNKNOWN) { /* nothing answers a key we do not know */
            send_final(p, rq->rid, (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT);
        }
        return;
    }
    request_finish(p, m, key, len);
}

#if ZM_PUSH_DECLS
/* Not inlined: its message is on the stack only while our queryables are sent. Never to a group
 * (zm_mcast_declares). */
ZM_NOINLINE z_result_t zm_queryables_push(zm_session_t *s, zm_peer_t *p)
{
    if (zm_peer_is_group(p)) {
        return Z_OK;
    }
    zm_network_msg_t m;
    zm_declaration_t none;
    memset(&none, 0, sizeof(none));
    zm_decl_msg(&m, &none, false);
    return push_queryables(s, p, NULL, 0, &m);
}
#endif

void zm_queryables_interest(zm_peer_t *p, uint8_t options, const char *key, size_t len, zm_network_msg_t *m)
{
    if ((options & ZM_INTEREST_Q) && !zm_peer_is_member(p)) { /* the answer would go to the group */
        z_result_t rc = push_queryables(p->s, p, key, len, m);
        if (rc != Z_OK) {
            zm_peer_send_failed(p, rc, "a declaration could not be sent");
        }
    }
}

void zm_queryables_close(zm_session_t *s) { zm_entities_free_all(&s->qbls); }

/* Not inlined: the response is on the stack only while it is sent. */
static ZM_NOINLINE z_result_t response_send(zm_session_t *s, zm_peer_t *p, const zm_query_route_t *r,
                                            const zm_reply_args_t *a)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE;
    m.ext.present = ZM_NET_EXT_RESPONDER;
    m.ext.responder.zid = s->zid;
    m.ext.responder.eid = r->eid;
    if (r->qos != ZM_QOS_DEFAULT) {
        m.ext.present |= ZM_NET_EXT_QOS;
        m.ext.qos = r->qos;
    }
    zm_response_t *resp = &m.body.response;
    resp->rid = r->rid;
    resp->wire_expr.mapping = ZM_MAPPING_SENDER;
    resp->wire_expr.has_suffix = true;
    if (a->kind == ZM_REPLY_OK) {
        resp->wire_expr.suffix = zm_slice(a->put.key, a->put.key_len);
        resp->body_id = ZM_MID_REPLY;
        zm_reply_t *rep = &resp->body.reply;
        rep->body_id = a->put.kind == ZM_SAMPLE_PUT ? ZM_MID_PUT : ZM_MID_DEL;
        rep->body.put = a->put.body;
    } else {
        resp->wire_expr.suffix = zm_slice(r->key, r->key_len);
        resp->body_id = ZM_MID_ERR;
        zm_err_t *err = &resp->body.err;
        err->payload = a->put.body.payload;
        err->has_encoding = a->put.body.has_encoding; /* never the empty encoding */
        err->encoding = a->put.body.encoding;
    }
    return zm_transport_send(zm_peer_tx(p), &m, true, ZM_QOS_PRIO(r->qos), a->put.express);
}

z_result_t zm_session_reply(zm_session_t *s, const zm_query_route_t *r, const zm_reply_args_t *a)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (a->kind == ZM_REPLY_OK) {
        ZM_TRY(zm_keyexpr_validate(a->put.key, a->put.key_len));
        if (a->put.kind > ZM_SAMPLE_DELETE) {
            return Z_EINVAL;
        }
        if (!r->any_key && !zm_keyexpr_intersects(r->key, r->key_len, a->put.key, a->put.key_len)) {
            return ZM_E_KEYEXPR; /* outside the query, which did not accept any key */
        }
    }
#if Z_FEATURE_LOCAL_QUERYABLE
    if (r->peer == ZM_ROUTE_LOCAL) {
        return get_local_reply(s, r, a);
    }
#endif
    zm_peer_t *p = route_pin(s, r);
    if (p == NULL) {
        return ZM_E_CLOSED; /* the peer that asked is gone */
    }
    z_result_t rc = response_send(s, p, r, a);
    if (rc != Z_OK) {
        zm_peer_send_failed(p, rc, "a reply could not be sent");
    }
    zm_peer_unpin(p);
    return rc;
}

#endif /* Z_FEATURE_QUERYABLE */

/* ==== gets ========================================================================================== */

#if Z_FEATURE_QUERY

/* Words of a get's bitmap of awaited final responses: one bit per peer slot, then ours. */
#define WAIT_LOCAL ZM_PEER_SLOTS
#define WAIT_WORDS ((ZM_PEER_SLOTS + 1 + 31) / 32)

/*
 * A reply kept for consolidation: its key and timestamp (the newest given to the application:
 * MONOTONIC, and LATEST past its budget), or for LATEST the whole reply, handed over when the get
 * ends. One allocation, of cost bytes, holds the record and copies of the reply's parts.
 */
typedef struct zm_kept {
    struct zm_kept *next;
    zm_reply_in_t reply; /* whole: its parts point into data */
    size_t key_len;
    size_t cost; /* counted in its get's kept_bytes, charged to the session's account */
    char data[]; /* key, then (whole) payload, encoding schema, attachment */
} zm_kept_t;

typedef struct zm_get {
    uint32_t rid;
    uint64_t deadline_ms;
    uint32_t waiting[WAIT_WORDS];
    uint8_t consolidation;
    bool any_key;
    bool tokens; /* a liveliness get (ZM_LIVELINESS_GET): its replies come as D_TOKEN, its finals as D_FINAL */
    bool ended;
    unsigned busy; /* reply callbacks running, plus the ender while it hands over kept replies */
    bool over; /* its replies outgrew the budget once (logged) */
    unsigned n_kept;
    size_t kept_bytes;
    zm_kept_t *kept;  /* MONOTONIC: the keys given; LATEST: the whole replies, in order of their keys */
    zm_kept_t *given; /* LATEST: the keys whose reply was given early, past the budget */
    zm_reply_fn fn;
    zm_drop_fn drop;
    void *ctx;
    zm_cancel_t *cancel;        /* the token it is linked to while it waits, or NULL */
    struct zm_get *cancel_next; /* the token's next get */
    zm_session_t *session;      /* for the token's cancel */
    size_t key_len;
    char key[];
} zm_get_t;

#define IS_TOKENS_GET(g) (ZM_LIVELINESS_GET && (g)->tokens)

static void wait_set(zm_get_t *g, unsigned bit) { g->waiting[bit / 32] |= 1u << (bit % 32); }

/* Clears one awaited final; true when none is left. */
static bool wait_clear(zm_get_t *g, unsigned bit)
{
    g->waiting[bit / 32] &= ~(1u << (bit % 32));
    for (size_t i = 0; i < WAIT_WORDS; i++) {
        if (g->waiting[i] != 0) {
            return false;
        }
    }
    return true;
}

static void kept_free_list(zm_kept_t *k)
{
    while (k != NULL) {
        zm_kept_t *next = k->next;
        zm_free(k);
        k = next;
    }
}

static void kept_free_all(zm_get_t *g)
{
    kept_free_list(g->kept);
    kept_free_list(g->given);
    g->kept = g->given = NULL;
}

/* ---- cancellation tokens (session.h): their lock ranks below the sessions' ---- */

struct zm_cancel {
    atomic_uint refs; /* the owners' references, and one per get linked */
    ZM_IF_THREADS(zm_mutex_t lock;)
    bool cancelled;
    zm_get_t *gets; /* waiting, linked through cancel_next */
};

static void cancel_lock(zm_cancel_t *t)
{
    ZM_IF_THREADS(zm_port_mutex_lock(&t->lock);)
    ZM_UNUSED(t);
}

static void cancel_unlock(zm_cancel_t *t)
{
    ZM_IF_THREADS(zm_port_mutex_unlock(&t->lock);)
    ZM_UNUSED(t);
}

z_result_t zm_cancel_new(zm_cancel_t **out)
{
    zm_cancel_t *t = zm_alloc(sizeof(*t));
    *out = t;
    if (t == NULL) {
        return ZM_E_NOMEM;
    }
    memset(t, 0, sizeof(*t));
    ZM_IF_THREADS(if (zm_port_mutex_init(&t->lock) != Z_OK) {
        zm_free(t);
        *out = NULL;
        return ZM_E_NOMEM;
    })
    atomic_init(&t->refs, 1u);
    return Z_OK;
}

zm_cancel_t *zm_cancel_ref(zm_cancel_t *t)
{
    atomic_fetch_add_explicit(&t->refs, 1u, memory_order_relaxed);
    return t;
}

void zm_cancel_unref(zm_cancel_t *t)
{
    if (t != NULL && atomic_fetch_sub_explicit(&t->refs, 1u, memory_order_acq_rel) == 1u) {
        ZM_IF_THREADS(zm_port_mutex_destroy(&t->lock);)
        zm_free(t);
    }
}

bool zm_cancel_is_cancelled(zm_cancel_t *t)
{
    cancel_lock(t);
    bool cancelled = t->cancelled;
    cancel_unlock(t);
    return cancelled;
}

/* s->lock held, g being registered in s: links g to t, which it holds while linked; false when t is cancelled. */
static bool cancel_link(zm_session_t *s, zm_get_t *g, zm_cancel_t *t)
{
    cancel_lock(t);
    bool open = !t->cancelled;
    if (open) {
        g->cancel = zm_cancel_ref(t);
        g->session = s;
        g->cancel_next = t->gets;
        t->gets = g;
    }
    cancel_unlock(t);
    return open;
}

/* s->lock held, g ending: unlinks it from its token, if any. */
static void cancel_unlink(zm_get_t *g)
{
    zm_cancel_t *t = g->cancel;
    if (!ZM_UNSTABLE_API || t == NULL) {
        return;
    }
    cancel_lock(t);
    zm_get_t **pp = &t->gets;
    while (*pp != g) {
        pp = &(*pp)->cancel_next;
    }
    *pp = g->cancel_next;
    cancel_unlock(t);
    g->cancel = NULL;
    zm_cancel_unref(t);
}

/* s->lock held. Ends one pin of g; the last pin of an ended get frees it (its drop, unlocked). */
static void get_unpin(zm_session_t *s, zm_get_t *g)
{
    if (--g->busy > 0 || !g->ended) {
        return;
    }
    zm_account_refund(&s->account, ZM_HELD_REPLIES, g->kept_bytes);
    S_UNLOCK(s);
    zm_drop_fn drop = g->drop;
    void *ctx = g->ctx;
    kept_free_all(g);
    zm_free(g);
    if (drop != NULL) { /* last: when the application hears of the end, the get holds nothing */
        drop(ctx);
    }
    S_LOCK(s);
}

/*
 * s->lock held, g in s->gets. Ends g once: it leaves the table, the replies LATEST kept are
 * handed to the application, and its drop runs after the last callback under way returns. The
 * ender is the thread of g's last final response, the worker (its timeout, a peer gone), the
 * canceller or the closer: never the lease task.
 */
static void get_end(zm_session_t *s, zm_get_t *g)
{
    if (g->ended) {
        return;
    }
    g->ended = true;
    (void)zm_idmap_remove(&s->gets, g->rid);
    cancel_unlink(g);
    g->busy++;
    zm_cb_frame_t frame = {NULL, zm_port_thread_self()}; /* its callbacks are inside the session */
    zm_callback_enter(s, &frame);
    S_UNLOCK(s);
    for (zm_kept_t *k = g->kept; g->consolidation == ZM_CONSOLIDATION_LATEST && k != NULL; k = k->next) {
        g->fn(&k->reply, g->ctx);
    }
    S_LOCK(s);
    get_unpin(s, g);
    zm_callback_leave(s, &frame);
}

/* s->lock held: pins the get of rid that is still waiting; NULL when there is none. */
static zm_get_t *get_pin(zm_session_t *s, uint32_t rid)
{
    zm_get_t *g = zm_idmap_get(&s->gets, rid);
    if (g == NULL || g->ended || IS_TOKENS_GET(g)) {
        return NULL;
    }
    g->busy++;
    return g;
}

/* Newer in Rust's order of optional timestamps: none is older than any. */
static bool ts_newer(const zm_reply_in_t *a, const zm_reply_in_t *b)
{
    if (!a->sample.has_timestamp) {
        return false;
    }
    if (!b->sample.has_timestamp) {
        return true;
    }
    const zm_timestamp_t *x = &a->sample.timestamp, *y = &b->sample.timestamp;
    if (x->time != y->time) {
        return x->time > y->time;
    }
    return memcmp(x->id.id, y->id.id, sizeof(x->id.id)) > 0;
}

/* The bytes a kept copy of r costs: its record and key, and with whole its other parts. */
static size_t kept_cost(const zm_reply_in_t *r, bool whole)
{
    size_t n = sizeof(zm_kept_t) + r->sample.key_len;
    if (whole) {
        n += r->sample.payload.len + r->sample.encoding.schema.len + r->sample.attachment.len;
    }
    return n;
}

/* A kept copy of r: its key, and with whole its other parts. NULL when out of memory. */
static zm_kept_t *kept_new(const zm_reply_in_t *r, bool whole)
{
    size_t cost = kept_cost(r, whole);
    zm_kept_t *k = zm_alloc(cost);
    if (k == NULL) {
        return NULL;
    }
    k->next = NULL;
    k->reply = *r;
    k->key_len = r->sample.key_len;
    k->cost = cost;
    char *at = k->data;
    memcpy(at, r->sample.key, r->sample.key_len);
    k->reply.sample.key = at;
    at += r->sample.key_len;
    if (whole) {
        zm_slice_t *parts[] = {&k->reply.sample.payload, &k->reply.sample.encoding.schema,
                               &k->reply.sample.attachment};
        for (size_t i = 0; i < ZM_ARRAY_LEN(parts); i++) {
            if (parts[i]->len > 0) {
                memcpy(at, parts[i]->ptr, parts[i]->len);
                parts[i]->ptr = (const uint8_t *)at;
                at += parts[i]->len;
            }
        }
    }
    return k;
}

/* The link to the entry of r's key in list *link, or to the list's end. */
static zm_kept_t **kept_find(zm_kept_t **link, const zm_reply_in_t *r)
{
    while (*link != NULL && !((*link)->key_len == r->sample.key_len &&
                              memcmp((*link)->data, r->sample.key, r->sample.key_len) == 0)) {
        link = &(*link)->next;
    }
    return link;
}

/* s->lock held: whether cost more bytes fit g's budget and the session's account once freed bytes
 * go; the growth, if any, is then charged (kept_settle gives back what is not used of it). */
static bool kept_charge(zm_session_t *s, const zm_get_t *g, size_t cost, size_t freed)
{
    return g->kept_bytes - freed + cost <= ZM_GET_KEPT_BYTES &&
           (cost <= freed || zm_account_charge(&s->account, ZM_HELD_REPLIES, cost - freed));
}

/* s->lock held: gives back to the account what from held beyond to (a change undone, or done). */
static void kept_settle(zm_session_t *s, size_t from, size_t to)
{
    if (from > to) {
        zm_account_refund(&s->account, ZM_HELD_REPLIES, from - to);
    }
}

/*
 * s->lock held. What consolidation makes of a reply: true when it is to be given to the
 * application now. MONOTONIC gives a reply when it is newer than the last one given for its
 * key; LATEST keeps the newest per key for the end. A LATEST reply that does not fit the get's
 * budget (ZM_GET_KEPT_BYTES) or the session's (ZM_GETS_KEPT_BYTES) is given at once, and its key
 * is consolidated as MONOTONIC from then on: nothing is lost, no reply older than one given goes
 * through, and what a get holds stays bounded. When ZM_GET_KEPT_MAX keys are kept (or even a key
 * does not fit, or memory runs out), a reply on another key goes through as it comes.
 */
static bool consolidate(zm_session_t *s, zm_get_t *g, const zm_reply_in_t *r)
{
    if (r->kind != ZM_REPLY_OK || g->consolidation == ZM_CONSOLIDATION_NONE) {
        return true;
    }
    bool latest = g->consolidation == ZM_CONSOLIDATION_LATEST;
    zm_kept_t **link = kept_find(&g->kept, r);
    zm_kept_t **given = latest && *link == NULL ? kept_find(&g->given, r) : NULL;
    if (given != NULL && *given != NULL) {
        link = given; /* given early: its key is monotonic now */
    }
    zm_kept_t *old = *link;
    if (old != NULL && !ts_newer(r, &old->reply)) {
        return false;
    }
    if (old == NULL && g->n_kept >= ZM_GET_KEPT_MAX) {
        return true;
    }
    size_t freed = old != NULL ? old->cost : 0;
    bool whole = latest && link != given && kept_charge(s, g, kept_cost(r, true), freed);
    size_t cost = kept_cost(r, whole);
    if (!whole && !kept_charge(s, g, cost, freed)) { /* a new key (an old one's record is bigger) */
        return true;
    }
    zm_kept_t *k = kept_new(r, whole);
    if (k == NULL) {
        kept_settle(s, cost, freed);
        return true;
    }
    if (latest && !whole && !g->over) {
        g->over = true;
        ZM_LOG_W("a get's replies outgrow its budget: latest replies past it are given at once");
    }
    if (old != NULL) {
        *link = old->next; /* out of its list, whichever */
        g->kept_bytes -= old->cost;
        zm_free(old);
    } else {
        g->n_kept++;
    }
    /* where the old one stood (or a new key, at the end of kept), unless it moves to given */
    bool in_kept = link != given, to_kept = whole || !latest;
    zm_kept_t **into = in_kept == to_kept ? link : &g->given;
    k->next = *into;
    *into = k;
    kept_settle(s, freed, cost);
    g->kept_bytes += k->cost;
    return !whole;
}

/* Gives r to g's callback if the key fits and consolidation lets it through; g is pinned. */
static void get_deliver(zm_session_t *s, zm_get_t *g, const zm_reply_in_t *r)
{
    if (r->kind == ZM_REPLY_OK && !g->any_key &&
        !zm_keyexpr_intersects(g->key, g->key_len, r->sample.key, r->sample.key_len)) {
        ZM_LOG_D("a reply outside its query's key expression: dropped");
        return;
    }
    S_LOCK(s);
    bool now = consolidate(s, g, r);
    S_UNLOCK(s);
    if (now) {
        g->fn(r, g->ctx);
    }
}

/* Not inlined: the reply is built on the stack only while a response is handled. */
static ZM_NOINLINE void response_deliver(zm_peer_t *p, zm_get_t *g, const zm_network_msg_t *m)
{
    const zm_response_t *resp = &m->body.response;
    zm_reply_in_t r;
    memset(&r, 0, sizeof(r));
    /* An error needs no key: Rust answers a query that timed out on its side with one on the
     * empty key expression (scope 0, no suffix). Any other key must resolve. */
    bool keyless_err = resp->body_id != ZM_MID_REPLY && resp->wire_expr.scope == 0 && resp->wire_expr.suffix.len == 0;
    z_result_t rc = keyless_err ? Z_OK : zm_remote_resolve(p, &resp->wire_expr, &r.sample.key, &r.sample.key_len);
    if (rc != Z_OK) {
        zm_bad_key(p, rc);
        return;
    }
    uint8_t qos = (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT;
    r.sample.priority = ZM_QOS_PRIO(qos);
    r.sample.block = (qos & ZM_QOS_BLOCK) != 0;
    r.sample.express = (qos & ZM_QOS_EXPRESS) != 0;
    r.sample.reliable = true;
    if (m->ext.present & ZM_NET_EXT_RESPONDER) {
        r.has_replier = true;
        r.replier_zid = m->ext.responder.zid;
        r.replier_eid = m->ext.responder.eid;
    }
    if (resp->body_id == ZM_MID_REPLY) {
        const zm_reply_t *rep = &resp->body.reply;
        r.kind = ZM_REPLY_OK;
        zm_sample_from_body(&r.sample, rep->body_id, &rep->body.put);
    } else {
        const zm_err_t *err = &resp->body.err;
        r.kind = ZM_REPLY_ERR;
        r.sample.payload = err->payload;
        r.sample.encoding = err->encoding;
    }
    get_deliver(p->s, g, &r);
}

void zm_query_on_response(zm_peer_t *p, const zm_network_msg_t *m)
{
    zm_session_t *s = p->s;
    S_LOCK(s);
    zm_get_t *g = get_pin(s, m->body.response.rid);
    S_UNLOCK(s);
    if (g == NULL) {
        return; /* ended (timeout) or never ours: late replies are dropped */
    }
    response_deliver(p, g, m);
    S_LOCK(s);
    get_unpin(s, g);
    S_UNLOCK(s);
}

/* A final response (or, tokens, a D_FINAL) for rid from the waiter bit (a peer slot, or WAIT_LOCAL). */
static void get_final(zm_session_t *s, uint32_t rid, unsigned bit, bool tokens)
{
    S_LOCK(s);
    zm_get_t *g = zm_idmap_get(&s->gets, rid);
    if (g != NULL && !g->ended && IS_TOKENS_GET(g) == tokens && wait_clear(g, bit)) {
        get_end(s, g);
    }
    S_UNLOCK(s);
}

void zm_query_on_response_final(zm_peer_t *p, const zm_network_msg_t *m)
{
    get_final(p->s, m->body.response_final.rid, p->index, false);
}

#if Z_FEATURE_QUERYABLE
static void get_local_final(zm_session_t *s, uint32_t rid) { get_final(s, rid, WAIT_LOCAL, false); }
#endif

#if Z_FEATURE_LOCAL_QUERYABLE
static ZM_NOINLINE z_result_t get_local_reply(zm_session_t *s, const zm_query_route_t *r, const zm_reply_args_t *a)
{
    S_LOCK(s);
    zm_get_t *g = get_pin(s, r->rid);
    S_UNLOCK(s);
    if (g == NULL) {
        return ZM_E_CLOSED; /* the get ended */
    }
    zm_reply_in_t rep;
    memset(&rep, 0, sizeof(rep));
    rep.kind = a->kind;
    zm_sample_from_args(&rep.sample, &a->put);
    if (a->kind == ZM_REPLY_ERR) {
        rep.sample.key = r->key;
        rep.sample.key_len = r->key_len;
    }
    rep.has_replier = true;
    rep.replier_zid = s->zid;
    rep.replier_eid = r->eid;
    get_deliver(s, g, &rep);
    S_LOCK(s);
    get_unpin(s, g);
    S_UNLOCK(s);
    return Z_OK;
}
#endif

/* Not inlined: the request is on the stack only while it is sent. */
static ZM_NOINLINE void request_send(zm_session_t *s, uint32_t rid, const zm_get_args_t *a,
                                     const zm_pins_t *pinned)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_REQUEST;
    m.ext.present = ZM_NET_EXT_QOS | ZM_NET_EXT_TIMEOUT;
    m.ext.qos = zm_qos_of(a->priority, a->block, a->express);
    m.ext.timeout_ms = a->timeout_ms;
    if (a->target != ZM_TARGET_BEST_MATCHING) {
        m.ext.present |= ZM_NET_EXT_TARGET;
        m.ext.target = a->target;
    }
    zm_request_t *rq = &m.body.request;
    rq->rid = rid;
    rq->wire_expr.mapping = ZM_MAPPING_SENDER;
    rq->wire_expr.has_suffix = true;
    rq->wire_expr.suffix = zm_slice(a->key, a->key_len);
    zm_query_t *q = &rq->query;
    q->has_consolidation = a->consolidation != ZM_CONSOLIDATION_AUTO;
    q->consolidation = a->consolidation;
    q->has_parameters = a->parameters.len > 0;
    q->parameters = a->parameters;
    if (a->has_body) {
        q->exts |= ZM_QUERY_EXT_BODY;
        q->body_payload = a->payload;
        q->body_encoding = a->encoding;
    }
    if (a->attachment != NULL) {
        q->exts |= ZM_QUERY_EXT_ATTACHMENT;
        q->attachment = *a->attachment;
    }
    if (a->source != NULL) {
        q->exts |= ZM_QUERY_EXT_SOURCE;
        q->source = *a->source;
    }
    for (size_t i = 0; i < pinned->n; i++) {
        zm_peer_t *p = pinned->p[i];
        z_result_t rc = zm_transport_send(&p->t, &m, true, a->priority, a->express);
        if (rc != Z_OK) {
            zm_peer_send_failed(p, rc, "a query could not be sent");
            if (!zm_peer_is_group(p)) { /* a group's members go with it, and end their waits */
                get_final(s, rid, p->index, false); /* no answer will come from it */
            }
        }
    }
}

#if Z_FEATURE_LOCAL_QUERYABLE
/* Not inlined: the query is on the stack only while our own queryables answer it. */
static ZM_NOINLINE void get_local(zm_session_t *s, uint32_t rid, const zm_get_args_t *a)
{
    zm_query_in_t q;
    memset(&q, 0, sizeof(q));
    q.key = a->key;
    q.key_len = a->key_len;
    q.parameters = a->parameters;
    q.has_body = a->has_body;
    q.payload = a->payload;
    q.encoding = a->encoding;
    q.has_attachment = a->attachment != NULL;
    q.attachment = a->attachment != NULL ? *a->attachment : zm_slice(NULL, 0);
    q.has_source = a->source != NULL;
    if (a->source != NULL) {
        q.source = *a->source;
    }
    q.route.peer = ZM_ROUTE_LOCAL;
    q.route.rid = rid;
    q.route.qos = zm_qos_of(a->priority, a->block, a->express);
    q.route.any_key = a->any_key;
    q.route.key = a->key;
    q.route.key_len = (uint16_t)a->key_len;
    qbls_dispatch(s, &q, a->target, false);
    query_end(s, q.rec, &q.route, q.ended);
}
#endif

/*
 * s->lock held: whether a get is sent to p, and waits for its final response. As Rust routes a
 * query: to a router (it routes), and to a peer only when one of its queryables intersects the
 * key, once its initial declarations are in (before, it is asked as a router would be). A peer
 * with no such queryable is neither asked nor waited for, so a peer that never answers costs a
 * get only the peers that declared what it asks. Scans p's queryables (within ZM_PEER_DECLS_MAX).
 * Without the peers' queryables kept (ZM_QBL_TRACKING), every peer is asked.
 */
#if ZM_QBL_TRACKING
typedef struct {
    const zm_get_args_t *a;
    bool found;
} qbl_scan_t;

static bool qbl_answers(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    const zm_rdecl_t *d = val;
    qbl_scan_t *scan = ctx;
    scan->found = zm_keyexpr_intersects(d->key, d->key_len, scan->a->key, scan->a->key_len);
    return !scan->found;
}

static bool get_asks(zm_peer_t *p, const zm_get_args_t *a)
{
    if (p->t.remote_whatami == ZM_WAI_PEER && p->declared && !zm_peer_is_group(p)) {
        qbl_scan_t scan = {a, false};
        zm_idmap_foreach(&p->remote.qbls, qbl_answers, &scan);
        return scan.found;
    }
    return true;
}
#else
#define get_asks(p, a) ((void)(p), (void)(a), true)
#endif

/*
 * s->lock held: registers g under a fresh id from *next, bounded by ZM_GETS_MAX, and links it to
 * cancel (if not NULL): Z_ERR_CANCELLED, and nothing registered, when that is cancelled already.
 */
static z_result_t get_register(zm_session_t *s, zm_get_t *g, uint32_t *next, zm_cancel_t *cancel)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED; /* its close ended the gets already, or is ending them */
    }
    if (zm_idmap_len(&s->gets) >= ZM_GETS_MAX) {
        return ZM_E_LIMIT;
    }
    do {
        g->rid = (*next)++;
    } while (g->rid == 0 || zm_idmap_get(&s->gets, g->rid) != NULL);
    void *old = NULL;
    if (zm_idmap_put(&s->gets, g->rid, g, &old) != Z_OK) {
        return ZM_E_NOMEM;
    }
    if (ZM_UNSTABLE_API && cancel != NULL && !cancel_link(s, g, cancel)) {
        (void)zm_idmap_remove(&s->gets, g->rid);
        return Z_ERR_CANCELLED;
    }
    return Z_OK;
}

z_result_t zm_session_get(zm_session_t *s, const zm_get_args_t *a, zm_reply_fn fn, zm_drop_fn drop, void *ctx,
                          uint32_t *rid_out)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    ZM_TRY(zm_keyexpr_validate(a->key, a->key_len));
    if (fn == NULL || a->target > ZM_TARGET_ALL_COMPLETE || a->consolidation > ZM_CONSOLIDATION_LATEST ||
        a->priority > ZM_PRIO_BACKGROUND || a->priority == ZM_PRIO_CONTROL || a->destination > ZM_LOCALITY_REMOTE) {
        return Z_EINVAL;
    }
    zm_get_t *g = zm_alloc(sizeof(*g) + a->key_len);
    if (g == NULL) {
        return ZM_E_NOMEM;
    }
    memset(g, 0, sizeof(*g));
    memcpy(g->key, a->key, a->key_len);
    g->key_len = a->key_len;
    g->any_key = a->any_key;
    g->consolidation = a->consolidation;
    if (g->consolidation == ZM_CONSOLIDATION_AUTO) { /* as Rust: none for time ranges, else latest */
        g->consolidation = zm_params_have(a->parameters, "_time") ? ZM_CONSOLIDATION_NONE : ZM_CONSOLIDATION_LATEST;
    }
    g->deadline_ms = zm_port_clock_ms() + a->timeout_ms;
    g->fn = fn;
    g->drop = drop;
    g->ctx = ctx;
    zm_pins_t pinned = {.n = 0};
    S_LOCK(s);
    z_result_t rc = get_register(s, g, &s->next_rid, a->cancel);
    if (rc != Z_OK) {
        S_UNLOCK(s);
        zm_free(g);
        return rc;
    }
    bool awaits = false; /* whether anyone asked will answer */
    for (size_t i = 0; i < zm_slots_pin(s) && a->destination != ZM_LOCALITY_SESSION_LOCAL; i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && get_asks(p, a)) {
            zm_atomic_inc_relaxed(&p->refs);
            pinned.p[pinned.n++] = p;
            if (!zm_peer_is_group(p)) {
                wait_set(g, (unsigned)i);
                awaits = true;
            }
        }
    }
    /* the group's members that ended their initial declarations answer every request (zmote
     * nodes); Rust members never do, they are not waited for */
    for (size_t i = ZM_GROUP_SLOT + 1; Z_FEATURE_MULTICAST_TRANSPORT && i < zm_slots(s) && pinned.n > 0 &&
                                       s->peers[ZM_GROUP_SLOT].state == PEER_LIVE &&
                                       a->destination != ZM_LOCALITY_SESSION_LOCAL;
         i++) {
        if (s->peers[i].state == PEER_LIVE && s->peers[i].declared) {
            wait_set(g, (unsigned)i);
            awaits = true;
        }
    }
    bool local = Z_FEATURE_LOCAL_QUERYABLE && a->destination != ZM_LOCALITY_REMOTE;
    if (local) {
        wait_set(g, WAIT_LOCAL);
    } else if (!awaits) {
        if (Z_FEATURE_MULTICAST_TRANSPORT && pinned.n > 0) { /* the group only, none of whose members answers */
            uint32_t rid = g->rid; /* g may end on another thread once unlocked */
            if (rid_out != NULL) {
                *rid_out = rid;
            }
            S_UNLOCK(s);
            request_send(s, rid, a, &pinned);
            zm_peers_unpin(&pinned);
            zm_session_get_cancel(s, rid); /* asked nobody that answers: it ends with no reply, here */
            return Z_OK;
        }
        get_end(s, g); /* asked nobody: it ends with no reply, here */
        S_UNLOCK(s);
        return Z_OK;
    }
    uint32_t rid = g->rid;
    if (rid_out != NULL) {
        *rid_out = rid;
    }
    S_UNLOCK(s);
    /*
     * From here g may end, and be freed, on another thread: only its id is used. Our own
     * queryables answer first, while the bits of the peers asked keep the get open: so when a peer
     * was asked, the get ends (its drop runs) on the thread of that peer's final response, of the
     * timeout or of the close, never within this call (where a caller may hold a lock its drop
     * takes), unless a request cannot be sent.
     */
#if Z_FEATURE_LOCAL_QUERYABLE
    if (local) {
        get_local(s, rid, a);
    }
#endif
    /* a copy of the query goes to each peer with the same id, on its own channel */
    request_send(s, rid, a, &pinned);
    zm_peers_unpin(&pinned);
    return Z_OK;
}

#if ZM_LIVELINESS_GET
z_result_t zm_queries_token_get_open(zm_session_t *s, const char *key, size_t len, uint64_t timeout_ms,
                                     zm_reply_fn fn, zm_drop_fn drop, void *ctx, bool (*ask)(const zm_peer_t *p),
                                     zm_pins_t *pinned, zm_cancel_t *cancel, uint32_t *id)
{
    pinned->n = 0;
    zm_get_t *g = zm_alloc(sizeof(*g) + len);
    if (g == NULL) {
        return ZM_E_NOMEM;
    }
    memset(g, 0, sizeof(*g));
    memcpy(g->key, key, len);
    g->key_len = len;
    g->consolidation = ZM_CONSOLIDATION_NONE;
    g->tokens = true;
    g->deadline_ms = zm_port_clock_ms() + timeout_ms;
    g->fn = fn;
    g->drop = drop;
    g->ctx = ctx;
    S_LOCK(s);
    /* an interest id: from the entity ids, which liveliness subscribers' interests use too */
    z_result_t rc = get_register(s, g, &s->next_id, cancel);
    if (rc != Z_OK) {
        S_UNLOCK(s);
        zm_free(g);
        return rc;
    }
    for (size_t i = 0; i < zm_slots_unicast(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && ask(p)) {
            zm_atomic_inc_relaxed(&p->refs);
            pinned->p[pinned->n++] = p;
            wait_set(g, (unsigned)i);
        }
    }
    wait_set(g, WAIT_LOCAL);
    *id = g->rid;
    S_UNLOCK(s);
    return Z_OK;
}

bool zm_queries_token_get_reply(zm_session_t *s, uint32_t id, const zm_reply_in_t *r)
{
    S_LOCK(s);
    zm_get_t *g = zm_idmap_get(&s->gets, id);
    bool ours = g != NULL && g->tokens && !g->ended;
    if (ours) {
        g->busy++;
    }
    S_UNLOCK(s);
    if (!ours) {
        return false;
    }
    get_deliver(s, g, r);
    S_LOCK(s);
    get_unpin(s, g);
    S_UNLOCK(s);
    return true;
}

void zm_queries_token_get_final(zm_session_t *s, uint32_t id, unsigned bit) { get_final(s, id, bit, true); }
#endif

/* s->lock held: the first get fn picks, or NULL. */
static zm_get_t *gets_find(zm_session_t *s, bool (*fn)(zm_get_t *g, uint64_t arg), uint64_t arg)
{
    uint32_t pos = 0, id = 0;
    void *val = NULL;
    while (zm_idmap_next(&s->gets, &pos, &id, &val)) {
        if (fn(val, arg)) {
            return val;
        }
    }
    return NULL;
}

static bool expired(zm_get_t *g, uint64_t now) { return !g->ended && g->deadline_ms <= now; }

static bool awaits(zm_get_t *g, uint64_t index)
{
    return !g->ended && wait_clear(g, (unsigned)index);
}

/* Ends every get fn picks, one at a time: each end may run callbacks, without the lock. */
static void gets_end(zm_session_t *s, bool (*fn)(zm_get_t *g, uint64_t arg), uint64_t arg)
{
    S_LOCK(s);
    for (zm_get_t *g = gets_find(s, fn, arg); g != NULL; g = gets_find(s, fn, arg)) {
        get_end(s, g); /* it leaves the table */
    }
    S_UNLOCK(s);
}

void zm_session_get_cancel(zm_session_t *s, uint32_t rid)
{
    S_LOCK(s);
    zm_get_t *g = zm_idmap_get(&s->gets, rid);
    if (g != NULL) {
        get_end(s, g);
    }
    S_UNLOCK(s);
}

/*
 * One get at a time, without t's lock while it ends (its session's lock ranks above): the get
 * linked first is picked and its session counted as cancelling under t's lock, which keeps that
 * session (its close ends and unlinks every get, then waits for the count), and ended under its
 * session's lock unless it ended meanwhile. Either way it is unlinked then, and the next one picked.
 */
void zm_cancel_cancel(zm_cancel_t *t)
{
    cancel_lock(t);
    t->cancelled = true;
    for (zm_get_t *g = t->gets; g != NULL; g = t->gets) {
        zm_session_t *s = g->session;
        uint32_t rid = g->rid;
        zm_atomic_inc(&s->cancels);
        cancel_unlock(t);
        S_LOCK(s);
        g = zm_idmap_get(&s->gets, rid);
        if (g != NULL && g->cancel == t) {
            get_end(s, g);
        }
        zm_atomic_dec(&s->cancels);
        S_BROADCAST(s);
        S_UNLOCK(s);
        cancel_lock(t);
    }
    cancel_unlock(t);
}

void zm_queries_tick(zm_session_t *s, uint64_t now_ms) { gets_end(s, expired, now_ms); }

void zm_queries_gone(zm_session_t *s, zm_peer_t *p) { gets_end(s, awaits, p->index); }

static bool any(zm_get_t *g, uint64_t arg)
{
    ZM_UNUSED(arg);
    return !g->ended;
}

void zm_queries_close(zm_session_t *s)
{
    gets_end(s, any, 0);
    S_LOCK(s);
    while (Z_FEATURE_MULTI_THREAD && zm_atomic_load(&s->cancels) > 0) { /* they find their gets ended */
        S_WAIT(s, 100u);
    }
    S_UNLOCK(s);
    zm_idmap_free(&s->gets);
}

#endif /* Z_FEATURE_QUERY */
