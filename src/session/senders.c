/*
 * Our publishers and queriers: a publisher is a use of its key expression; both are kept
 * (ZM_SENDERS_KEPT) where something reads them after their declaration: matching, which asks
 * routers about them, again after a reconnection.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/hub.h"
#include "util/alloc.h"

#if (Z_FEATURE_PUBLICATION || Z_FEATURE_QUERY) && ZM_SENDERS_KEPT

/* Declares the key expression of a publisher or querier and records it (its id in *id). */
static z_result_t sender_add(zm_session_t *s, const char *key, size_t len, bool querier, uint8_t target, uint32_t *id,
                             uint16_t *key_id)
{
    zm_pub_t *p = zm_calloc(sizeof(*p));
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
    zm_hub_sender(s, p, true);
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
    zm_hub_sender(s, p, false);
    zm_free(p);
    return zm_session_undeclare_keyexpr(s, key_id); /* the key goes with its last user */
}
#endif

#if Z_FEATURE_PUBLICATION && ZM_SENDERS_KEPT
z_result_t zm_session_declare_publisher(zm_session_t *s, const char *key, size_t len, uint32_t *id, uint16_t *key_id)
{
    return sender_add(s, key, len, false, 0, id, key_id);
}

z_result_t zm_session_undeclare_publisher(zm_session_t *s, uint32_t id, uint16_t key_id)
{
    ZM_UNUSED(key_id);
    return sender_remove(s, id, false);
}
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

z_result_t zm_session_undeclare_publisher(zm_session_t *s, uint32_t id, uint16_t key_id)
{
    ZM_UNUSED(id);
    return zm_session_undeclare_keyexpr(s, key_id); /* the key goes with its last user */
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

#if ZM_SENDERS_KEPT
void zm_senders_close(zm_session_t *s)
{
    while (s->pubs != NULL) {
        zm_pub_t *p = s->pubs;
        s->pubs = p->next;
        zm_free(p);
    }
}
#endif
