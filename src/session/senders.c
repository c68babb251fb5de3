/*
 * Our publishers and queriers: a publisher is a use of its key expression, which its caller
 * declared before it (zm_session_declare_keyexpr) and undeclares after it; both are kept
 * (ZM_SENDERS_KEPT) where something reads them after their declaration: matching, which asks
 * routers about them, again after a reconnection.
 */
#include "session/hub.h"
#include "util/alloc.h"

#if (Z_FEATURE_PUBLICATION || Z_FEATURE_QUERY) && ZM_SENDERS_KEPT

/* Records a publisher or querier on the declared key key_id (its id in *id). */
static z_result_t sender_add(zm_session_t *s, uint16_t key_id, bool querier, uint8_t target, uint32_t *id)
{
    zm_pub_t *p = zm_calloc(sizeof(*p));
    if (p == NULL) {
        return ZM_E_NOMEM;
    }
    S_LOCK(s);
    p->id = s->next_id++;
    p->key_id = key_id;
    p->querier = querier;
    p->target = target;
    p->next = s->pubs;
    s->pubs = p;
    *id = p->id;
    S_UNLOCK(s);
    zm_hub_sender(s, p, true);
    return Z_OK;
}

static void sender_remove(zm_session_t *s, uint32_t id, bool querier)
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
    if (p != NULL) {
        zm_hub_sender(s, p, false);
        zm_free(p);
    }
}
#endif

#if Z_FEATURE_PUBLICATION && ZM_SENDERS_KEPT
z_result_t zm_session_declare_publisher(zm_session_t *s, uint16_t key_id, uint32_t *id)
{
    return sender_add(s, key_id, false, 0, id);
}

void zm_session_undeclare_publisher(zm_session_t *s, uint32_t id) { sender_remove(s, id, false); }
#elif Z_FEATURE_PUBLICATION
/* Nothing reads a publisher once declared (ZM_SENDERS_KEPT): it is its key expression's use, and
 * an entity id of its own. */
z_result_t zm_session_declare_publisher(zm_session_t *s, uint16_t key_id, uint32_t *id)
{
    ZM_UNUSED(key_id);
    S_LOCK(s);
    *id = s->next_id++;
    S_UNLOCK(s);
    return Z_OK;
}

void zm_session_undeclare_publisher(zm_session_t *s, uint32_t id)
{
    ZM_UNUSED(s);
    ZM_UNUSED(id);
}
#endif

#if Z_FEATURE_QUERY
z_result_t zm_session_declare_querier(zm_session_t *s, uint16_t key_id, uint8_t target, uint32_t *id)
{
    if (target > ZM_TARGET_ALL_COMPLETE) {
        return Z_EINVAL;
    }
    return sender_add(s, key_id, true, target, id);
}

void zm_session_undeclare_querier(zm_session_t *s, uint32_t id) { sender_remove(s, id, true); }
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
