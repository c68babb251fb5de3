/*
 * What peers declare: their key expressions (to resolve the ids their messages use) and their
 * subscribers (to know where our puts must go). Each peer's declarations live in id maps,
 * bounded together by ZM_PEER_DECLS_MAX entries and ZM_PEER_DECL_BYTES_MAX key bytes, and all
 * peers' together by the session's account (ZM_SESSION_DECL_BYTES_MAX: transport/account.h), charged
 * per entry and refunded as it goes, the rest when its peer is gone: a peer that goes past them,
 * or names an invalid key, has its link closed and costs only itself. A router's declarations are
 * the network's (every token and subscriber of a system that a client asks about): they have
 * bounds of their own, ZM_ROUTER_*, past which (or past the session's) what comes is ignored,
 * counted and logged, and the link stays. Matching is done here, when a subscriber comes or
 * goes, against the few keys we send on (our declared key expressions and the z_put cache): the
 * data path only reads the counts. A queryable that comes or goes is told to the hub, whose
 * features count it against our queriers.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

/* ---- hits ------------------------------------------------------------------------------------ */

#if ZM_SUB_TRACKING

typedef struct {
    const char *key;
    size_t len;
    unsigned index;
    zm_hits_t *hits;
} hits_scan_t;

static bool hits_scan_one(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    const zm_rdecl_t *d = val;
    hits_scan_t *scan = ctx;
    if (zm_keyexpr_intersects(d->key, d->key_len, scan->key, scan->len)) {
        scan->hits->n[scan->index]++;
    }
    return true;
}

void zm_hits_count(zm_session_t *s, const char *key, size_t len, zm_hits_t *hits)
{
    memset(hits, 0, sizeof(*hits));
    for (unsigned i = 0; i < zm_slots(s); i++) {
        if (s->peers[i].state == PEER_LIVE) {
            hits_scan_t scan = {key, len, i, hits};
            zm_idmap_foreach(&s->peers[i].remote.subs, hits_scan_one, &scan);
        }
    }
}

typedef struct {
    const zm_rdecl_t *sub;
    unsigned index;
    int delta;
} hits_change_t;

static void hits_apply(zm_hits_t *hits, const char *key, size_t len, const hits_change_t *c)
{
    if (!zm_keyexpr_intersects(c->sub->key, c->sub->key_len, key, len)) {
        return;
    }
    uint32_t *n = &hits->n[c->index];
    if (c->delta > 0) {
        (*n)++;
    } else if (*n > 0) {
        (*n)--;
    }
}

static bool hits_apply_lkey(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    zm_lkey_t *k = val;
    hits_apply(&k->hits, k->key, k->key_len, ctx);
    return true;
}

/* s->lock held: a subscriber of peer index came (delta 1) or went (-1). */
static void hits_change(zm_session_t *s, const zm_rdecl_t *sub, unsigned index, int delta)
{
    hits_change_t c = {sub, index, delta};
    S_ROUTES_CHANGED(s);
    zm_idmap_foreach(&s->keys, hits_apply_lkey, &c);
#if ZM_WRITE_FILTER && ZM_PUT_CACHE_SLOTS > 0
    for (size_t i = 0; i < ZM_PUT_CACHE_SLOTS; i++) {
        zm_put_cache_t *e = &s->put_cache[i];
        if (e->used != 0) {
            hits_apply(&e->hits, e->key, e->key_len, &c);
        }
    }
#endif
}

static bool hits_reset_lkey(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    zm_lkey_t *k = val;
    k->hits.n[*(const unsigned *)ctx] = 0;
    return true;
}

void zm_hits_reset_peer(zm_session_t *s, unsigned index)
{
    zm_idmap_foreach(&s->keys, hits_reset_lkey, &index);
#if ZM_WRITE_FILTER && ZM_PUT_CACHE_SLOTS > 0
    for (size_t i = 0; i < ZM_PUT_CACHE_SLOTS; i++) {
        s->put_cache[i].hits.n[index] = 0;
    }
#endif
}
#endif /* ZM_SUB_TRACKING */

/* ---- resolving wire expressions -------------------------------------------------------------- */

#if ZM_REMOTE_DECLS

/* Where the read thread of p joins its keys: its own slot's buffer, a member's group's. */
static char *key_buf(zm_peer_t *p)
{
    return p->s->key_bufs[zm_peer_is_member(p) ? ZM_GROUP_SLOT : p->index];
}

static z_result_t join(zm_peer_t *p, const char *prefix, size_t plen, const zm_wire_expr_t *we, const char **key,
                       size_t *len)
{
    char *buf = key_buf(p);
    if (plen + we->suffix.len > ZM_KEYEXPR_MAX) {
        return ZM_E_KEYEXPR;
    }
    if (prefix != buf) {
        memcpy(buf, prefix, plen);
    }
    if (we->suffix.len > 0) {
        memcpy(buf + plen, we->suffix.ptr, we->suffix.len);
    }
    *key = buf;
    *len = plen + we->suffix.len;
    return Z_OK;
}

static ZM_NOINLINE z_result_t resolve(zm_peer_t *p, const zm_wire_expr_t *we, const char **key, size_t *len)
{
    if (we->scope == 0) {
        *key = (const char *)we->suffix.ptr;
        *len = we->suffix.len;
        if (*len > ZM_KEYEXPR_MAX) {
            return ZM_E_KEYEXPR;
        }
    } else if (we->mapping == ZM_MAPPING_SENDER) {
        /* a stream of samples names one id again and again: the last one found is kept */
        const zm_rdecl_t *d = p->remote.last_key;
        if (d == NULL || p->remote.last_key_id != we->scope) {
            d = zm_idmap_get(&p->remote.keys, we->scope);
            p->remote.last_key = d;
            p->remote.last_key_id = we->scope;
            p->remote.last_key_match.first = NULL;
            p->remote.last_key_match.gen = 0;
        }
        if (d == NULL) {
            return ZM_E_DECL_UNKNOWN;
        }
        if (we->suffix.len == 0) {
            *key = d->key; /* only this thread changes the peer's keys: valid through the callback */
            *len = d->key_len;
            return Z_OK;
        }
        ZM_TRY(join(p, d->key, d->key_len, we, key, len));
    } else {
        /* ours: copied under the lock, since it may be undeclared meanwhile */
        zm_session_t *s = p->s;
        z_result_t rc = ZM_E_DECL_UNKNOWN;
        S_LOCK(s);
        const zm_lkey_t *k = zm_idmap_get(&s->keys, we->scope);
        if (k != NULL && k->key_len <= ZM_KEYEXPR_MAX) {
            memcpy(key_buf(p), k->key, k->key_len);
            rc = Z_OK;
        }
        size_t plen = k != NULL ? k->key_len : 0;
        S_UNLOCK(s);
        ZM_TRY(rc);
        ZM_TRY(join(p, key_buf(p), plen, we, key, len));
    }
    /* a declared key alone was checked when it was declared: the common case of a publisher */
    return we->scope != 0 && we->suffix.len == 0 ? Z_OK : zm_keyexpr_validate(*key, *len);
}

/* A publisher's stream names the key it declared again and again: the one last found is tried
 * first, in a frame of its own, small, before the general case's. */
z_result_t zm_remote_resolve(zm_peer_t *p, const zm_wire_expr_t *we, const char **key, size_t *len)
{
    const zm_rdecl_t *last = p->remote.last_key; /* found for an id other than 0 */
    if (last != NULL && p->remote.last_key_id == we->scope && we->mapping == ZM_MAPPING_SENDER && we->suffix.len == 0) {
        *key = last->key;
        *len = last->key_len;
        return Z_OK;
    }
    return resolve(p, we, key, len);
}
#endif /* ZM_REMOTE_DECLS */

/* ---- declarations ---------------------------------------------------------------------------- */

/* The end of a burst of ignored declarations (the link's end included): how many it was. */
static void rdecl_burst_end(zm_peer_t *p)
{
    if (p->remote.ignored > 0) {
        ZM_LOG_W("%u declarations of the router were ignored", (unsigned)p->remote.ignored);
        p->remote.ignored = 0;
    }
}

/* What an entry of len key bytes is charged to the session's account: its record and key, and
 * its slot in its peer's map with what the allocator rounds up, taken as 16 bytes. */
static size_t rdecl_cost(size_t len) { return sizeof(zm_rdecl_t) + 16u + len; }

#if ZM_REMOTE_DECLS
static void rdecl_release(zm_peer_t *p, zm_rdecl_t *d)
{
    p->remote.n--;
    p->remote.bytes -= d->key_len;
    zm_account_refund(&p->s->account, ZM_HELD_DECLS, rdecl_cost(d->key_len));
    zm_free(d);
}

/*
 * Whether p serves us the network's declarations: a router, or whatever a client connects to
 * (a peer serves its clients as a router does). Those are held within ZM_ROUTER_* bounds.
 */
static bool serves_network(const zm_peer_t *p)
{
    return p->t.remote_whatami == ZM_WAI_ROUTER || !zm_session_is_peer(p->s);
}

/*
 * A declaration of a router that does not fit its bounds (or memory): ignored and counted. A
 * burst of them is logged twice, when it begins and when a declaration fits again (with how
 * many were ignored), never once per declaration.
 */
static z_result_t rdecl_ignore(zm_peer_t *p)
{
    if (p->remote.ignored++ == 0) {
        ZM_LOG_W("the router's declarations exceed ZM_ROUTER_DECLS_MAX, ZM_ROUTER_DECL_BYTES_MAX or the session's "
                 "ZM_SESSION_DECL_BYTES_MAX (or memory): the excess is ignored");
    }
    return Z_OK;
}

/*
 * Stores a key expression or subscriber of p within its bounds and the session's account:
 * *stored is the new entry (NULL if nothing was stored), *old the one it replaced, for the caller
 * to release. Past a router's bounds nothing is stored and the result is Z_OK (rdecl_ignore);
 * past a peer's, ZM_E_LIMIT.
 */
static z_result_t rdecl_put(zm_peer_t *p, zm_idmap_t *map, uint32_t id, const char *key, size_t len,
                            zm_rdecl_t **stored, zm_rdecl_t **old)
{
    *stored = NULL;
    *old = NULL;
    zm_remote_t *r = &p->remote;
    bool router = serves_network(p);
    const zm_rdecl_t *prev = zm_idmap_get(map, id);
    /* a redeclaration replaces its entry: it counts once, with its new key */
    uint32_t n = r->n + (prev == NULL ? 1u : 0u);
    size_t bytes = r->bytes - (prev != NULL ? prev->key_len : 0u) + len;
    if (n > (router ? ZM_ROUTER_DECLS_MAX : ZM_PEER_DECLS_MAX) ||
        bytes > (router ? ZM_ROUTER_DECL_BYTES_MAX : ZM_PEER_DECL_BYTES_MAX)) {
        return router ? rdecl_ignore(p) : ZM_E_LIMIT;
    }
    zm_account_t *account = &p->s->account;
    if (!zm_account_charge(account, ZM_HELD_DECLS, rdecl_cost(len))) {
        return router ? rdecl_ignore(p) : ZM_E_LIMIT;
    }
    zm_rdecl_t *d = zm_alloc(sizeof(*d) + len);
    z_result_t rc = d != NULL ? Z_OK : ZM_E_NOMEM;
    void *replaced = NULL;
    if (d != NULL) {
        d->key_len = (uint16_t)len;
        d->complete = false;
        memcpy(d->key, key, len);
        rc = zm_idmap_put(map, id, d, &replaced);
    }
    if (rc != Z_OK) {
        zm_account_refund(account, ZM_HELD_DECLS, rdecl_cost(len));
        zm_free(d);
        return router && rc == ZM_E_NOMEM ? rdecl_ignore(p) : rc;
    }
    rdecl_burst_end(p);
    r->n++; /* and the replaced one is released by the caller, through rdecl_release */
    r->bytes += len;
    *stored = d;
    *old = replaced;
    return Z_OK;
}

#if ZM_LIVELINESS_SUBS
/* The same two for the tokens liveliness.c keeps in p's bounds. */
z_result_t zm_rdecl_put(zm_peer_t *p, zm_idmap_t *map, uint32_t id, const char *key, size_t len, zm_rdecl_t **stored,
                        zm_rdecl_t **old)
{
    return rdecl_put(p, map, id, key, len, stored, old);
}

void zm_rdecl_release(zm_peer_t *p, zm_rdecl_t *d) { rdecl_release(p, d); }
#endif

z_result_t zm_remote_on_declare(zm_peer_t *p, const zm_declare_t *dm)
{
    const zm_declaration_t *d = &dm->decl;
    zm_session_t *s = p->s;
    ZM_UNUSED(s); /* where peers' subscribers and queryables are not tracked */
    const char *key;
    size_t len;
    zm_rdecl_t *old = NULL;
    zm_rdecl_t *stored = NULL;
    z_result_t rc = Z_OK;
    switch (d->kind) {
    case ZM_DECL_KEYEXPR:
        p->remote.last_key = NULL;
        ZM_TRY(zm_remote_resolve(p, &d->wire_expr, &key, &len));
        rc = rdecl_put(p, &p->remote.keys, d->id, key, len, &stored, &old);
        if (old != NULL) {
            rdecl_release(p, old); /* a redeclaration replaces */
        }
        return rc;
    case ZM_UNDECL_KEYEXPR:
        p->remote.last_key = NULL;
        old = zm_idmap_remove(&p->remote.keys, d->id);
        if (old != NULL) {
            rdecl_release(p, old);
        }
        return Z_OK;
#if ZM_SUB_TRACKING
    case ZM_DECL_SUBSCRIBER: {
        ZM_TRY(zm_remote_resolve(p, &d->wire_expr, &key, &len));
        S_LOCK(s);
        rc = rdecl_put(p, &p->remote.subs, d->id, key, len, &stored, &old);
        if (old != NULL) {
            hits_change(s, old, p->index, -1);
        }
        if (stored != NULL) {
            hits_change(s, stored, p->index, 1);
        }
        S_UNLOCK(s);
        if (old != NULL) {
            rdecl_release(p, old);
        }
        return rc;
    }
    case ZM_UNDECL_SUBSCRIBER:
        S_LOCK(s);
        old = zm_idmap_remove(&p->remote.subs, d->id);
        if (old != NULL) {
            hits_change(s, old, p->index, -1);
        }
        S_UNLOCK(s);
        if (old != NULL) {
            rdecl_release(p, old);
        }
        return Z_OK;
#endif
#if ZM_QBL_TRACKING
    case ZM_DECL_QUERYABLE:
        ZM_TRY(zm_remote_resolve(p, &d->wire_expr, &key, &len));
        S_LOCK(s);
        rc = rdecl_put(p, &p->remote.qbls, d->id, key, len, &stored, &old);
        if (old != NULL) {
            zm_hub_peer_qbl(s, old, -1);
        }
        if (stored != NULL) {
            stored->complete = d->has_qbl_info && d->qbl_complete;
            zm_hub_peer_qbl(s, stored, 1);
        }
        S_UNLOCK(s);
        if (old != NULL) {
            rdecl_release(p, old);
        }
        return rc;
    case ZM_UNDECL_QUERYABLE:
        S_LOCK(s);
        old = zm_idmap_remove(&p->remote.qbls, d->id);
        if (old != NULL) {
            zm_hub_peer_qbl(s, old, -1);
        }
        S_UNLOCK(s);
        if (old != NULL) {
            rdecl_release(p, old);
        }
        return Z_OK;
#endif
#if ZM_SUB_TRACKING || Z_FEATURE_MULTICAST_TRANSPORT /* a member that ends it answers our gets */
    case ZM_DECL_FINAL:
        if (dm->has_interest_id && dm->interest_id == 0) {
            S_LOCK(s);
            p->declared = true; /* its initial declarations are all in */
            S_ROUTES_CHANGED(s);
            S_UNLOCK(s);
        }
        return Z_OK;
#endif
    default:
        return Z_OK; /* what this build keeps nothing of */
    }
}
#endif /* ZM_REMOTE_DECLS */

static bool rdecl_free_one(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    ZM_UNUSED(ctx);
    zm_free(val);
    return true;
}

static bool qbl_forget(uint32_t id, void *val, void *ctx)
{
    ZM_UNUSED(id);
    zm_hub_peer_qbl(ctx, val, -1);
    return true;
}

/* Empties map, which others read under s->lock, and frees its entries unlocked; each queryable
 * (qbls) is told to the hub as forgotten first. */
static void map_free_shared(zm_session_t *s, zm_idmap_t *map, bool qbls)
{
    S_LOCK(s);
    if (qbls) {
        zm_idmap_foreach(map, qbl_forget, s);
    }
    zm_idmap_t old = *map;
    zm_idmap_init(map, old.seed);
    S_UNLOCK(s);
    zm_idmap_foreach(&old, rdecl_free_one, NULL);
    zm_idmap_free(&old);
}

void zm_remote_free(zm_session_t *s, zm_peer_t *p)
{
    rdecl_burst_end(p);
    /* every entry it still holds, its tokens taken away to report their end included */
    zm_account_refund(&s->account, ZM_HELD_DECLS, p->remote.n * rdecl_cost(0) + p->remote.bytes);
    p->remote.n = 0;
    p->remote.bytes = 0;
    zm_idmap_foreach(&p->remote.keys, rdecl_free_one, NULL);
    zm_idmap_free(&p->remote.keys);
    if (ZM_SUB_TRACKING) {
        map_free_shared(s, &p->remote.subs, false);
    }
    if (ZM_QBL_TRACKING) {
        map_free_shared(s, &p->remote.qbls, true);
    }
    /* the last key found starts again in zm_peer_setup, when the slot is next used: nothing reads
     * it in between */
}
