/*
 * Cancellation tokens (unstable API): a counted record shared by the owned tokens and by the
 * gets given it. Each get links a node of its own context into the token while it waits, and
 * unlinks it when it ends; cancelling ends each linked get through its session, one at a time
 * and without the token's lock (ending a get unlinks it, under that lock).
 */
#include <string.h>

#include "api/api.h"
#include "zmote/port.h"

#if Z_FEATURE_QUERY && ZM_UNSTABLE_API

#if Z_FEATURE_MULTI_THREAD
#define LOCK(t) zm_port_mutex_lock(&(t)->lock)
#define UNLOCK(t) zm_port_mutex_unlock(&(t)->lock)
#else
#define LOCK(t) ((void)(t))
#define UNLOCK(t) ((void)(t))
#endif

struct zm_api_cancel {
    atomic_uint refs; /* owned tokens + gets linked */
#if Z_FEATURE_MULTI_THREAD
    zm_mutex_t lock;
#endif
    bool cancelled;
    zm_api_cancel_link_t *gets;
};

static void token_unref(zm_api_cancel_t *t)
{
    if (t != NULL && atomic_fetch_sub_explicit(&t->refs, 1u, memory_order_acq_rel) == 1u) {
#if Z_FEATURE_MULTI_THREAD
        zm_port_mutex_destroy(&t->lock);
#endif
        zm_free(t);
    }
}

z_result_t z_cancellation_token_new(z_owned_cancellation_token_t *cancellation_token)
{
    if (cancellation_token == NULL) {
        return Z_EINVAL;
    }
    cancellation_token->_rc.ptr = NULL;
    zm_api_cancel_t *t = zm_alloc(sizeof(*t));
    if (t == NULL) {
        return ZM_E_NOMEM;
    }
    memset(t, 0, sizeof(*t));
#if Z_FEATURE_MULTI_THREAD
    if (zm_port_mutex_init(&t->lock) != Z_OK) {
        zm_free(t);
        return ZM_E_NOMEM;
    }
#endif
    atomic_init(&t->refs, 1u);
    cancellation_token->_rc.ptr = t;
    return Z_OK;
}

void z_internal_cancellation_token_null(z_owned_cancellation_token_t *obj)
{
    if (obj != NULL) {
        obj->_rc.ptr = NULL;
    }
}

bool z_internal_cancellation_token_check(const z_owned_cancellation_token_t *obj)
{
    return obj != NULL && obj->_rc.ptr != NULL;
}

ZM_API_DEFINE_TAKE(cancellation_token)

void z_cancellation_token_drop(z_moved_cancellation_token_t *obj)
{
    if (obj != NULL) {
        token_unref(obj->_this._rc.ptr);
        obj->_this._rc.ptr = NULL;
    }
}

z_result_t z_cancellation_token_clone(z_owned_cancellation_token_t *dst, const z_loaned_cancellation_token_t *src)
{
    if (dst == NULL || src == NULL || src->ptr == NULL) {
        return Z_EINVAL;
    }
    atomic_fetch_add_explicit(&src->ptr->refs, 1u, memory_order_relaxed);
    dst->_rc.ptr = src->ptr;
    return Z_OK;
}

bool z_cancellation_token_is_cancelled(const z_loaned_cancellation_token_t *cancellation_token)
{
    if (cancellation_token == NULL || cancellation_token->ptr == NULL) {
        return false;
    }
    zm_api_cancel_t *t = cancellation_token->ptr;
    LOCK(t);
    bool cancelled = t->cancelled;
    UNLOCK(t);
    return cancelled;
}

/* Lock held: the first linked get not asked to end yet, marked as asked (NULL: none left). */
static zm_api_cancel_link_t *next_unasked(zm_api_cancel_t *t)
{
    zm_api_cancel_link_t *l = t->gets;
    while (l != NULL && l->asked) {
        l = l->next;
    }
    if (l != NULL) {
        l->asked = true;
    }
    return l;
}

/* Ends the get rid of session b, if b is open. */
static void cancel_get(zm_api_session_t *b, uint32_t rid)
{
    zm_session_t *s;
    if (rid != 0 && zm_api_session_enter(b, &s) == Z_OK) {
        zm_session_get_cancel(s, rid);
        zm_api_session_leave(b);
    }
}

z_result_t z_cancellation_token_cancel(z_loaned_cancellation_token_t *cancellation_token)
{
    if (cancellation_token == NULL || cancellation_token->ptr == NULL) {
        return Z_EINVAL;
    }
    zm_api_cancel_t *t = cancellation_token->ptr;
    LOCK(t);
    t->cancelled = true;
    for (zm_api_cancel_link_t *l = next_unasked(t); l != NULL; l = next_unasked(t)) {
        zm_api_session_t *b = l->session;
        uint32_t rid = atomic_load_explicit(&l->rid, memory_order_acquire);
        zm_api_session_ref(b); /* the link may go with its get as soon as the lock is let go */
        UNLOCK(t);
        cancel_get(b, rid); /* a get without its id yet is ended by its own z_get */
        zm_api_session_unref(b);
        LOCK(t);
    }
    UNLOCK(t);
    return Z_OK;
}

z_result_t zm_api_cancel_link(zm_api_cancel_t *t, zm_api_cancel_link_t *l, zm_api_session_t *b)
{
    LOCK(t);
    bool cancelled = t->cancelled;
    if (!cancelled) {
        l->session = b;
        atomic_init(&l->rid, 0u);
        l->asked = false;
        l->next = t->gets;
        t->gets = l;
        atomic_fetch_add_explicit(&t->refs, 1u, memory_order_relaxed);
    }
    UNLOCK(t);
    return cancelled ? Z_ERR_CANCELLED : Z_OK;
}

void zm_api_cancel_started(zm_api_cancel_t *t, zm_api_session_t *b, uint32_t rid)
{
    LOCK(t);
    bool cancelled = t->cancelled;
    UNLOCK(t);
    if (cancelled) {
        cancel_get(b, rid); /* cancelled while it was being sent: the cancel could not name it */
    }
}

void zm_api_cancel_unlink(zm_api_cancel_t *t, zm_api_cancel_link_t *l)
{
    LOCK(t);
    zm_api_cancel_link_t **pp = &t->gets;
    while (*pp != NULL && *pp != l) {
        pp = &(*pp)->next;
    }
    if (*pp == l) {
        *pp = l->next;
    }
    UNLOCK(t);
    token_unref(t);
}

#endif
