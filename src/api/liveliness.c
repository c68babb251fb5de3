/*
 * Liveliness of the API: tokens, liveliness subscribers (plain subscriber objects, marked so
 * that undeclaring them ends the right kind) and liveliness gets (their replies reach the
 * program exactly as z_get's). Each call checks its arguments and releases what it was given,
 * on every path; the session does the rest.
 */
#include <string.h>

#include "api/api.h"

#if Z_FEATURE_LIVELINESS

static zm_api_session_t *record_of(const z_loaned_session_t *zs) { return zs != NULL ? zs->ptr : NULL; }

static bool key_valid(const zm_api_keyexpr_t *k) { return k != NULL && k->key.slice.len > 0; }

/* ---- tokens ------------------------------------------------------------------------------------- */

void z_internal_liveliness_token_null(z_owned_liveliness_token_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_liveliness_token_check(const z_owned_liveliness_token_t *obj)
{
    return obj != NULL && obj->_val.session != NULL;
}

ZM_API_DEFINE_TAKE(liveliness_token)

void z_liveliness_token_drop(z_moved_liveliness_token_t *obj)
{
    z_result_t r = z_liveliness_undeclare_token(obj);
    ZM_UNUSED(r);
}

z_result_t z_liveliness_token_options_default(z_liveliness_token_options_t *options)
{
    if (options == NULL) {
        return Z_EINVAL;
    }
    memset(options, 0, sizeof(*options));
    return Z_OK;
}

z_result_t z_liveliness_declare_token(const z_loaned_session_t *zs, z_owned_liveliness_token_t *token,
                                      const z_loaned_keyexpr_t *keyexpr, const z_liveliness_token_options_t *options)
{
    ZM_UNUSED(options);
    if (token == NULL) {
        return Z_EINVAL;
    }
    z_internal_liveliness_token_null(token);
    if (!key_valid(keyexpr)) {
        return Z_EINVAL;
    }
    zm_api_session_t *b = record_of(zs);
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(b, &s));
    uint32_t id = 0;
    z_result_t r = zm_session_declare_token(s, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len, &id);
    zm_api_session_leave(b);
    ZM_TRY(r);
    zm_api_session_ref(b);
    token->_val.session = b;
    token->_val.id = id;
    return Z_OK;
}

z_result_t z_liveliness_undeclare_token(z_moved_liveliness_token_t *token)
{
    if (token == NULL || token->_this._val.session == NULL) {
        return Z_ENULL;
    }
    zm_api_liveliness_token_t *v = &token->_this._val;
    z_result_t r = zm_api_undeclare(v->session, v->id, zm_session_undeclare_token);
    z_internal_liveliness_token_null(&token->_this);
    return r;
}

/* ---- liveliness subscribers --------------------------------------------------------------------- */

#if Z_FEATURE_SUBSCRIPTION

z_result_t z_liveliness_subscriber_options_default(z_liveliness_subscriber_options_t *options)
{
    if (options == NULL) {
        return Z_EINVAL;
    }
    options->history = false;
    return Z_OK;
}

/* Declares on the session; takes callback on every path. key, when not NULL, gets a copy of the
 * key expression for z_subscriber_keyexpr. */
static z_result_t subscribe(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                            z_moved_closure_sample_t *callback, const z_liveliness_subscriber_options_t *options,
                            zm_api_keyexpr_t *key, uint32_t *id)
{
    if (callback == NULL) {
        return Z_EINVAL;
    }
    if (!key_valid(keyexpr)) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
    bool history = options != NULL && options->history;
    if (key != NULL) {
        z_result_t r = zm_api_keyexpr_clone(key, keyexpr);
        if (r != Z_OK) {
            z_closure_sample_drop(callback);
            return r;
        }
        key->id = 0;
        key->session = NULL;
    }
    zm_api_sub_ctx_t *ctx = zm_api_sub_ctx_new(callback);
    z_result_t r = ctx != NULL ? Z_OK : ZM_E_NOMEM;
    zm_api_session_t *b = record_of(zs);
    zm_session_t *s = NULL;
    if (r == Z_OK) {
        r = zm_api_session_enter(b, &s);
    }
    if (r == Z_OK) {
        r = zm_session_declare_liveliness_subscriber(s, (const char *)keyexpr->key.slice.start,
                                                     keyexpr->key.slice.len, history, zm_api_subscriber_deliver,
                                                     zm_api_subscriber_release, ctx, id);
        zm_api_session_leave(b);
    }
    if (r != Z_OK) {
        if (ctx != NULL) {
            zm_api_subscriber_release(ctx); /* the closure's drop runs once, here */
        }
        if (key != NULL) {
            zm_api_keyexpr_clear(key);
        }
    }
    return r;
}

z_result_t z_liveliness_declare_subscriber(const z_loaned_session_t *zs, z_owned_subscriber_t *sub,
                                           const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                           z_liveliness_subscriber_options_t *options)
{
    if (sub == NULL) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
    z_internal_subscriber_null(sub);
    zm_api_subscriber_t v;
    memset(&v, 0, sizeof(v));
    ZM_TRY(subscribe(zs, keyexpr, callback, options, &v.keyexpr, &v.id));
    v.session = record_of(zs);
    v.liveliness = true;
    zm_api_session_ref(v.session);
    sub->_val = v;
    return Z_OK;
}

z_result_t z_liveliness_declare_background_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                                      z_moved_closure_sample_t *callback,
                                                      z_liveliness_subscriber_options_t *options)
{
    uint32_t id;
    return subscribe(zs, keyexpr, callback, options, NULL, &id);
}

#endif /* Z_FEATURE_SUBSCRIPTION */

/* ---- liveliness gets ---------------------------------------------------------------------------- */

#if Z_FEATURE_QUERY

z_result_t z_liveliness_get_options_default(z_liveliness_get_options_t *options)
{
    if (options == NULL) {
        return Z_EINVAL;
    }
    memset(options, 0, sizeof(*options));
    return Z_OK;
}

/* Starts the get of c (which it owns from here) on b; token (NULL: none) is linked to it. */
static z_result_t liveliness_get(zm_api_session_t *b, const zm_api_keyexpr_t *keyexpr, uint64_t timeout_ms,
                                 zm_api_get_ctx_t *c, zm_cancel_t *token)
{
    zm_session_t *s;
    uint32_t id = 0;
    z_result_t r = zm_api_session_enter(b, &s);
    if (r == Z_OK) {
        r = zm_session_liveliness_get(s, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len, timeout_ms,
                                      zm_api_get_deliver, zm_api_get_release, c, token, &id);
        zm_api_session_leave(b);
    }
    if (r != Z_OK) {
        zm_api_get_release(c); /* the closure's drop runs once, here */
    }
    return r;
}

z_result_t z_liveliness_get(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                            z_moved_closure_reply_t *callback, z_liveliness_get_options_t *options)
{
    z_liveliness_get_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_liveliness_get_options_default(&o);
    }
    zm_cancel_t *token = NULL;
    ZM_IF_UNSTABLE(token = o.cancellation_token != NULL ? o.cancellation_token->_this._rc.ptr : NULL;) /* the get links its own */
    z_result_t r = Z_EINVAL;
    if (callback == NULL || !key_valid(keyexpr)) {
        z_closure_reply_drop(callback);
    } else {
        zm_api_get_ctx_t *c = zm_alloc(sizeof(*c));
        if (c == NULL) {
            z_closure_reply_drop(callback);
            r = ZM_E_NOMEM;
        } else {
            memset(c, 0, sizeof(*c));
            c->closure = callback->_this._val;
            z_internal_closure_reply_null(&callback->_this);
            r = liveliness_get(record_of(zs), keyexpr, o.timeout_ms != 0 ? o.timeout_ms : Z_GET_TIMEOUT_DEFAULT, c,
                               token);
        }
    }
    ZM_IF_UNSTABLE(z_cancellation_token_drop(o.cancellation_token);)
    return r;
}

#endif /* Z_FEATURE_QUERY */

#endif /* Z_FEATURE_LIVELINESS */
