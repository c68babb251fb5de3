/*
 * Our key expressions (D_KEYEXPR), shared by the publishers on them: declared to every peer when
 * made and again to each new peer. Each carries the count of each peer's subscribers that
 * intersect it (remote.c keeps them current), which is all a put on it needs.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

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
    z_result_t rc = zm_decl_send(p, &d, false);
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

z_result_t zm_keys_push(zm_session_t *s, zm_peer_t *p)
{
    if (zm_peer_is_group(p) && !zm_mcast_declares(ZM_DECL_KEYEXPR)) {
        return Z_OK;
    }
    return push_keys(s, p);
}
#endif /* ZM_PUSH_DECLS */

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
    if (ZM_SUB_TRACKING) {
        zm_hits_count(s, key, len, &k->hits);
    }
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


void zm_keys_close(zm_session_t *s)
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
}
