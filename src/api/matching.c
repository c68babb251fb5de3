/*
 * Matching of the API: the matching status of publishers and queriers and their listeners, over
 * the session's counts (src/session/matching.c). Listeners are owned or background, and end
 * with their publisher or querier.
 */
#include <string.h>

#include "api/api.h"

/* ---- matching ------------------------------------------------------------------------------------- */

void z_internal_matching_listener_null(z_owned_matching_listener_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_matching_listener_check(const z_owned_matching_listener_t *obj)
{
    return obj != NULL && obj->_val.session != NULL;
}

ZM_API_DEFINE_TAKE(matching_listener)

#if Z_FEATURE_MATCHING
z_result_t zm_api_matching_status(zm_api_session_t *b, uint32_t id, uint8_t destination, z_matching_status_t *status)
{
    if (status == NULL) {
        return Z_EINVAL;
    }
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(b, &s));
    bool matching = false;
    z_result_t r = zm_session_publisher_matching(s, id, destination, &matching);
    zm_api_session_leave(b);
    status->matching = matching;
    return r;
}

/* What a matching listener gives the session as its context: the user's closure. */
typedef struct {
    zm_api_closure_matching_status_t closure;
} matching_ctx_t;

static void matching_deliver(bool matching, void *ctx)
{
    matching_ctx_t *c = ctx;
    z_matching_status_t status = {matching};
    if (c->closure.call != NULL) {
        c->closure.call(&status, c->closure.context);
    }
}

static void matching_release(void *ctx)
{
    matching_ctx_t *c = ctx;
    if (c->closure.drop != NULL) {
        c->closure.drop(c->closure.context);
    }
    zm_free(c);
}

z_result_t zm_api_matching_listen(zm_api_session_t *b, uint32_t id, uint8_t destination,
                                  z_owned_matching_listener_t *listener, z_moved_closure_matching_status_t *callback)
{
    if (listener != NULL) {
        z_internal_matching_listener_null(listener);
    }
    if (b == NULL || callback == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    matching_ctx_t *c = zm_alloc(sizeof(*c));
    if (c == NULL) {
        z_closure_matching_status_drop(callback);
        return ZM_E_NOMEM;
    }
    c->closure = callback->_this._val;
    z_internal_closure_matching_status_null(&callback->_this);
    zm_session_t *s;
    uint32_t lid = 0;
    z_result_t r = zm_api_session_enter(b, &s);
    if (r == Z_OK) {
        r = zm_session_declare_matching_listener(s, id, destination, matching_deliver, matching_release, c, &lid);
        zm_api_session_leave(b);
    }
    if (r != Z_OK) {
        matching_release(c);
    } else if (listener != NULL) {
        listener->_val.session = b;
        listener->_val.id = lid;
        zm_api_session_ref(b);
    }
    return r;
}

#if Z_FEATURE_PUBLICATION
static uint8_t destination_of(const zm_api_publisher_t *pub)
{
#if Z_FEATURE_LOCAL_SUBSCRIBER
    return (uint8_t)pub->allowed_destination;
#else
    ZM_UNUSED(pub);
    return ZM_LOCALITY_REMOTE;
#endif
}

z_result_t z_publisher_get_matching_status(const z_loaned_publisher_t *publisher, z_matching_status_t *matching_status)
{
    if (publisher == NULL) {
        return Z_EINVAL;
    }
    return zm_api_matching_status(publisher->session, publisher->id, destination_of(publisher), matching_status);
}

z_result_t z_publisher_declare_matching_listener(const z_loaned_publisher_t *publisher,
                                                 z_owned_matching_listener_t *matching_listener,
                                                 z_moved_closure_matching_status_t *callback)
{
    if (matching_listener == NULL || publisher == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    return zm_api_matching_listen(publisher->session, publisher->id, destination_of(publisher), matching_listener,
                                  callback);
}

z_result_t z_publisher_declare_background_matching_listener(const z_loaned_publisher_t *publisher,
                                                            z_moved_closure_matching_status_t *callback)
{
    if (publisher == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    return zm_api_matching_listen(publisher->session, publisher->id, destination_of(publisher), NULL, callback);
}
#endif

#if Z_FEATURE_QUERY
static uint8_t querier_destination(const zm_api_querier_t *q)
{
#if Z_FEATURE_LOCAL_QUERYABLE
    return (uint8_t)q->allowed_destination;
#else
    ZM_UNUSED(q);
    return ZM_LOCALITY_REMOTE;
#endif
}

z_result_t z_querier_get_matching_status(const z_loaned_querier_t *querier, z_matching_status_t *matching_status)
{
    if (querier == NULL) {
        return Z_EINVAL;
    }
    return zm_api_matching_status(querier->session, querier->id, querier_destination(querier), matching_status);
}

z_result_t z_querier_declare_matching_listener(const z_loaned_querier_t *querier,
                                               z_owned_matching_listener_t *matching_listener,
                                               z_moved_closure_matching_status_t *callback)
{
    if (matching_listener == NULL || querier == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    return zm_api_matching_listen(querier->session, querier->id, querier_destination(querier), matching_listener,
                                  callback);
}

z_result_t z_querier_declare_background_matching_listener(const z_loaned_querier_t *querier,
                                                          z_moved_closure_matching_status_t *callback)
{
    if (querier == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    return zm_api_matching_listen(querier->session, querier->id, querier_destination(querier), NULL, callback);
}
#endif
#endif /* Z_FEATURE_MATCHING */

z_result_t z_undeclare_matching_listener(z_moved_matching_listener_t *listener)
{
    if (listener == NULL || listener->_this._val.session == NULL) {
        return Z_ENULL;
    }
    zm_api_matching_listener_t *v = &listener->_this._val;
#if Z_FEATURE_MATCHING
    z_result_t r = zm_api_undeclare(v->session, v->id, zm_session_undeclare_matching_listener);
    if (r == Z_EINVAL) {
        r = Z_OK; /* its publisher or querier, undeclared, ended it already */
    }
#else
    z_result_t r = Z_OK;
    zm_api_session_unref(v->session);
#endif
    z_internal_matching_listener_null(&listener->_this);
    return r;
}

void z_matching_listener_drop(z_moved_matching_listener_t *obj)
{
    z_result_t r = z_undeclare_matching_listener(obj);
    ZM_UNUSED(r);
}
