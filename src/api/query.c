/*
 * Queries of the API: gets, queriers and their replies, queryables and the queries they
 * receive. A query or reply handed to a callback borrows the received message (nothing is
 * copied or allocated); cloning one copies what it borrows. An owned query keeps its query open
 * through the session's record (zm_query_retain), so that its final response waits for it.
 */
#include <string.h>

#include "api/api.h"

#if Z_FEATURE_QUERY || Z_FEATURE_QUERYABLE

static zm_api_session_t *record_of(const z_loaned_session_t *zs) { return zs != NULL ? zs->ptr : NULL; }

static bool key_valid(const zm_api_keyexpr_t *k) { return k != NULL && k->key.slice.len > 0; }

#if Z_FEATURE_LOCAL_QUERYABLE
static bool locality_valid(z_locality_t l)
{
    return l == Z_LOCALITY_ANY || l == Z_LOCALITY_SESSION_LOCAL || l == Z_LOCALITY_REMOTE;
}
#endif

ZM_API_DEFINE_CLOSURE(closure_query, z_loaned_query_t *)
ZM_API_DEFINE_CLOSURE(closure_reply, z_loaned_reply_t *)

z_query_target_t z_query_target_default(void) { return Z_QUERY_TARGET_DEFAULT; }
z_reply_keyexpr_t z_reply_keyexpr_default(void) { return Z_REPLY_KEYEXPR_DEFAULT; }

static z_query_consolidation_t consolidation(z_consolidation_mode_t mode)
{
    z_query_consolidation_t c = {mode};
    return c;
}

z_query_consolidation_t z_query_consolidation_auto(void) { return consolidation(Z_CONSOLIDATION_MODE_AUTO); }
z_query_consolidation_t z_query_consolidation_default(void) { return consolidation(Z_CONSOLIDATION_MODE_DEFAULT); }
z_query_consolidation_t z_query_consolidation_latest(void) { return consolidation(Z_CONSOLIDATION_MODE_LATEST); }
z_query_consolidation_t z_query_consolidation_monotonic(void)
{
    return consolidation(Z_CONSOLIDATION_MODE_MONOTONIC);
}
z_query_consolidation_t z_query_consolidation_none(void) { return consolidation(Z_CONSOLIDATION_MODE_NONE); }

#endif

/* ==== replies ======================================================================================= */

#if Z_FEATURE_QUERY

static void reply_err_clear(zm_api_reply_err_t *e)
{
    zm_api_slice_drop(&e->payload.slice);
    zm_api_encoding_clear(&e->encoding);
}

void z_internal_reply_err_null(z_owned_reply_err_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

/* An error reply is valid with an empty payload too: the owned one is never "null" by content. */
bool z_internal_reply_err_check(const z_owned_reply_err_t *obj)
{
    return obj != NULL && (obj->_val.payload.slice.start != NULL || obj->_val.encoding.id != 0);
}

ZM_API_DEFINE_TAKE(reply_err)

void z_reply_err_drop(z_moved_reply_err_t *obj)
{
    if (obj != NULL) {
        reply_err_clear(&obj->_this._val);
    }
}

static z_result_t reply_err_copy(zm_api_reply_err_t *dst, const zm_api_reply_err_t *src)
{
    memset(dst, 0, sizeof(*dst));
    z_result_t r = zm_api_slice_clone(&dst->payload.slice, &src->payload.slice);
    if (r == Z_OK) {
        r = zm_api_encoding_clone(&dst->encoding, &src->encoding);
    }
    if (r != Z_OK) {
        reply_err_clear(dst);
    }
    return r;
}

z_result_t z_reply_err_clone(z_owned_reply_err_t *dst, const z_loaned_reply_err_t *src)
{
    if (dst == NULL || src == NULL) {
        return Z_EINVAL;
    }
    return reply_err_copy(&dst->_val, src);
}

z_result_t z_reply_err_take_from_loaned(z_owned_reply_err_t *dst, z_loaned_reply_err_t *src)
{
    ZM_TRY(z_reply_err_clone(dst, src));
    reply_err_clear(src);
    return Z_OK;
}

const z_loaned_bytes_t *z_reply_err_payload(const z_loaned_reply_err_t *reply_err)
{
    return reply_err != NULL ? &reply_err->payload : NULL;
}

const z_loaned_encoding_t *z_reply_err_encoding(const z_loaned_reply_err_t *reply_err)
{
    return reply_err != NULL ? &reply_err->encoding : NULL;
}

void zm_api_reply_clear(zm_api_reply_t *r)
{
    zm_api_sample_clear(&r->sample);
    reply_err_clear(&r->err);
    memset(r, 0, sizeof(*r));
}

void z_internal_reply_null(z_owned_reply_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_reply_check(const z_owned_reply_t *obj) { return obj != NULL && obj->_val.state != ZM_API_REPLY_NULL; }

ZM_API_DEFINE_TAKE(reply)

void z_reply_drop(z_moved_reply_t *obj)
{
    if (obj != NULL) {
        zm_api_reply_clear(&obj->_this._val);
    }
}

z_result_t zm_api_reply_copy(zm_api_reply_t *dst, const zm_api_reply_t *src, zm_api_buffer_fn get, void *ctx)
{
    memset(dst, 0, sizeof(*dst));
    if (src->state == ZM_API_REPLY_NULL) {
        return Z_EINVAL;
    }
    z_result_t r;
    if (src->state == ZM_API_REPLY_OK) {
        r = zm_api_sample_copy(&dst->sample, &src->sample, get, ctx);
    } else {
        dst->err = src->err;
        zm_api_slice_t *parts[] = {&dst->err.payload.slice, &dst->err.encoding.schema.slice};
        r = zm_api_parts_copy(parts, ZM_ARRAY_LEN(parts), get, ctx);
    }
    if (r != Z_OK) {
        memset(dst, 0, sizeof(*dst));
        return r;
    }
    dst->state = src->state;
    dst->has_replier = src->has_replier;
    dst->replier_id = src->replier_id;
    return Z_OK;
}

z_result_t z_reply_clone(z_owned_reply_t *dst, const z_loaned_reply_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_reply_null(dst);
    return src != NULL ? zm_api_reply_copy(&dst->_val, src, zm_api_block_get, NULL) : Z_EINVAL;
}

z_result_t z_reply_take_from_loaned(z_owned_reply_t *dst, z_loaned_reply_t *src)
{
    ZM_TRY(z_reply_clone(dst, src));
    zm_api_reply_clear(src);
    return Z_OK;
}

bool z_reply_is_ok(const z_loaned_reply_t *reply) { return reply != NULL && reply->state == ZM_API_REPLY_OK; }

const z_loaned_sample_t *z_reply_ok(const z_loaned_reply_t *reply) { return reply != NULL ? &reply->sample : NULL; }

const z_loaned_reply_err_t *z_reply_err(const z_loaned_reply_t *reply) { return reply != NULL ? &reply->err : NULL; }

bool z_reply_replier_id(const z_loaned_reply_t *reply, z_entity_global_id_t *out_id)
{
    if (reply == NULL || !reply->has_replier) {
        return false;
    }
    if (out_id != NULL) {
        *out_id = reply->replier_id;
    }
    return true;
}

/* ---- gets ---------------------------------------------------------------------------------------- */

void zm_api_get_deliver(const zm_reply_in_t *in, void *ctx)
{
    zm_api_get_ctx_t *c = ctx;
    zm_api_reply_t r;
    memset(&r, 0, sizeof(r));
    if (in->kind == ZM_REPLY_OK) {
        r.state = ZM_API_REPLY_OK;
        zm_api_sample_from_session(&r.sample, &in->sample);
    } else {
        r.state = ZM_API_REPLY_ERR;
        r.err.payload.slice = zm_api_slice_borrow(in->sample.payload.ptr, in->sample.payload.len);
        r.err.encoding.id = in->sample.encoding.id;
        if (in->sample.encoding.has_schema) {
            r.err.encoding.schema.slice =
                zm_api_slice_borrow(in->sample.encoding.schema.ptr, in->sample.encoding.schema.len);
        }
    }
    if (in->has_replier) {
        r.has_replier = true;
        r.replier_id.zid = zm_api_id_from_zid(&in->replier_zid);
        r.replier_id.eid = in->replier_eid;
    }
    if (c->closure.call != NULL) {
        c->closure.call(&r, c->closure.context);
    }
    zm_api_reply_clear(&r); /* what the callback attached to it (a program writing into it) */
}

void zm_api_get_release(void *ctx)
{
    zm_api_get_ctx_t *c = ctx;
    zm_api_closure_reply_t closure = c->closure;
    zm_free(c);
    if (closure.drop != NULL) { /* last: the get holds nothing once its end is told */
        closure.drop(closure.context);
    }
}

void z_get_options_default(z_get_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    options->consolidation = z_query_consolidation_default();
    options->congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    options->priority = Z_PRIORITY_DEFAULT;
    ZM_IF_LOCAL_QBL(options->allowed_destination = Z_LOCALITY_ANY;)
    options->target = z_query_target_default();
    options->timeout_ms = Z_GET_TIMEOUT_DEFAULT;
    options->accept_replies = z_reply_keyexpr_default();
}

/* The session's consolidation for the API's mode; AUTO stays AUTO (the session resolves it). */
static uint8_t consolidation_of(z_consolidation_mode_t m)
{
    switch (m) {
    case Z_CONSOLIDATION_MODE_NONE:
        return ZM_CONSOLIDATION_NONE;
    case Z_CONSOLIDATION_MODE_MONOTONIC:
        return ZM_CONSOLIDATION_MONOTONIC;
    case Z_CONSOLIDATION_MODE_LATEST:
        return ZM_CONSOLIDATION_LATEST;
    case Z_CONSOLIDATION_MODE_AUTO:
        return ZM_CONSOLIDATION_AUTO;
    default:
        return 0xff; /* refused by the session */
    }
}

/* The token a get's options give, used for the call only: the get links its own reference. */
#if ZM_UNSTABLE_API
#define GET_TOKEN(o) ((o).cancellation_token != NULL ? (o).cancellation_token->_this._rc.ptr : NULL)
#define GET_TOKEN_DROP(o) z_cancellation_token_drop((o).cancellation_token)
#else
#define GET_TOKEN(o) NULL
#define GET_TOKEN_DROP(o) ((void)0)
#endif

/*
 * Sends a on b with callback (taken on every path), linked to the token a->cancel, if any. The
 * get may end inside this call only when no router or peer was asked.
 */
static z_result_t session_get(zm_api_session_t *b, zm_get_args_t *a, z_moved_closure_reply_t *callback)
{
    if (callback == NULL) {
        z_closure_reply_drop(callback);
        return Z_EINVAL;
    }
    zm_api_get_ctx_t *c = zm_alloc(sizeof(*c));
    if (c == NULL) {
        z_closure_reply_drop(callback);
        return ZM_E_NOMEM;
    }
    c->closure = callback->_this._val;
    z_internal_closure_reply_null(&callback->_this);
    z_result_t r = Z_OK;
    /* Rust reads a get's acceptance of replies on any key from its parameters, as "_anyke": added
     * to a copy of them, which the session reads during the call only */
    char *with_anyke = NULL;
    if (r == Z_OK && a->any_key && !zm_params_have(a->parameters, "_anyke")) {
        size_t n = a->parameters.len;
        with_anyke = zm_alloc(n + sizeof(";_anyke"));
        r = with_anyke != NULL ? Z_OK : ZM_E_NOMEM;
        if (with_anyke != NULL) {
            if (n > 0) {
                memcpy(with_anyke, a->parameters.ptr, n);
                with_anyke[n++] = ';';
            }
            memcpy(with_anyke + n, "_anyke", 6);
            a->parameters = zm_slice(with_anyke, n + 6);
        }
    }
    zm_session_t *s;
    if (r == Z_OK) {
        r = zm_api_session_enter(b, &s);
    }
    if (r == Z_OK) {
        r = zm_session_get(s, a, zm_api_get_deliver, zm_api_get_release, c, NULL);
        zm_api_session_leave(b);
    }
    zm_free(with_anyke);
    if (r != Z_OK) {
        zm_api_get_release(c);
    }
    return r;
}

/* The request parts of a get that borrow API objects; they must live as long as the args. */
typedef struct {
    zm_slice_t attachment;
    zm_source_info_t source;
} get_parts_t;

static void get_body(zm_get_args_t *a, get_parts_t *parts, z_moved_bytes_t *payload, z_moved_encoding_t *encoding,
                     z_moved_bytes_t *attachment)
{
    if (payload != NULL || encoding != NULL) {
        a->has_body = true;
        if (payload != NULL) {
            a->payload = zm_slice(payload->_this._val.slice.start, payload->_this._val.slice.len);
        }
        if (encoding != NULL) {
            const zm_api_encoding_t *e = &encoding->_this._val;
            a->encoding.id = e->id;
            a->encoding.has_schema = e->schema.slice.len > 0;
            a->encoding.schema = zm_slice(e->schema.slice.start, e->schema.slice.len);
        }
    }
    if (attachment != NULL) {
        parts->attachment = zm_slice(attachment->_this._val.slice.start, attachment->_this._val.slice.len);
        a->attachment = &parts->attachment;
    }
}

#if ZM_UNSTABLE_API
static void get_source(zm_get_args_t *a, get_parts_t *parts, const z_source_info_t *si)
{
    if (si != NULL) {
        zm_api_zid_from_id(&parts->source.zid, &si->source_id.zid);
        parts->source.eid = si->source_id.eid;
        parts->source.sn = si->source_sn;
        a->source = &parts->source;
    }
}
#endif

z_result_t z_get_with_parameters_substr(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                        const char *parameters, size_t parameters_len,
                                        z_moved_closure_reply_t *callback, z_get_options_t *options)
{
    z_get_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_get_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    if (key_valid(keyexpr) && (parameters != NULL || parameters_len == 0)) {
        /* ZM_E_NOMEM: runs that could not be joined */
        r = zm_api_bytes_whole(o.payload) && zm_api_bytes_whole(o.attachment) ? Z_OK : ZM_E_NOMEM;
    }
    if (r == Z_OK) {
        zm_get_args_t a;
        get_parts_t parts;
        memset(&a, 0, sizeof(a));
        a.key = (const char *)keyexpr->key.slice.start;
        a.key_len = keyexpr->key.slice.len;
        a.parameters = zm_slice(parameters, parameters_len);
        get_body(&a, &parts, o.payload, o.encoding, o.attachment);
        a.target = (uint8_t)o.target;
        a.consolidation = consolidation_of(o.consolidation.mode);
        a.priority = (uint8_t)o.priority;
        a.block = o.congestion_control != Z_CONGESTION_CONTROL_DROP;
        a.express = o.is_express;
        a.any_key = o.accept_replies == Z_REPLY_KEYEXPR_ANY;
        ZM_IF_LOCAL_QBL(a.destination = locality_valid(o.allowed_destination) ? (uint8_t)o.allowed_destination : 0xffu;)
        a.timeout_ms = o.timeout_ms != 0 ? o.timeout_ms : Z_GET_TIMEOUT_DEFAULT;
        ZM_IF_UNSTABLE(get_source(&a, &parts, o.source_info);)
        a.cancel = GET_TOKEN(o);
        r = session_get(record_of(zs), &a, callback);
        callback = NULL;
    }
    z_closure_reply_drop(callback);
    z_bytes_drop(o.payload);
    z_encoding_drop(o.encoding);
    z_bytes_drop(o.attachment);
    GET_TOKEN_DROP(o);
    return r;
}

z_result_t z_get(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr, const char *parameters,
                 z_moved_closure_reply_t *callback, z_get_options_t *options)
{
    return z_get_with_parameters_substr(zs, keyexpr, parameters, parameters != NULL ? strlen(parameters) : 0,
                                        callback, options);
}

/* ---- queriers ------------------------------------------------------------------------------------- */

void z_querier_options_default(z_querier_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    options->target = z_query_target_default();
    options->consolidation = z_query_consolidation_default();
    options->congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    ZM_IF_LOCAL_QBL(options->allowed_destination = Z_LOCALITY_ANY;)
    options->priority = Z_PRIORITY_DEFAULT;
    options->timeout_ms = Z_GET_TIMEOUT_DEFAULT;
    options->accept_replies = z_reply_keyexpr_default();
}

void z_querier_get_options_default(z_querier_get_options_t *options)
{
    if (options != NULL) {
        memset(options, 0, sizeof(*options));
    }
}

void z_internal_querier_null(z_owned_querier_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_querier_check(const z_owned_querier_t *obj) { return obj != NULL && obj->_val.session != NULL; }

ZM_API_DEFINE_TAKE(querier)

z_result_t z_declare_querier(const z_loaned_session_t *zs, z_owned_querier_t *querier,
                             const z_loaned_keyexpr_t *keyexpr, z_querier_options_t *options)
{
    z_querier_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_querier_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    zm_api_session_t *b = record_of(zs);
    if (querier != NULL) {
        z_internal_querier_null(querier);
    }
    if (querier != NULL && b != NULL && key_valid(keyexpr)) {
        zm_api_querier_t q;
        memset(&q, 0, sizeof(q));
        r = zm_api_keyexpr_clone(&q.keyexpr, keyexpr);
        if (r == Z_OK && o.encoding != NULL) {
            r = zm_api_encoding_clone(&q.encoding, &o.encoding->_this._val);
        }
        zm_session_t *s = NULL;
        if (r == Z_OK && (unsigned)o.target > (unsigned)Z_QUERY_TARGET_ALL_COMPLETE) {
            r = Z_EINVAL;
        }
        if (r == Z_OK && (r = zm_api_session_enter(b, &s)) == Z_OK) {
            /* its key expression first, which goes again when the querier fails */
            r = zm_session_declare_keyexpr(s, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len,
                                           &q.key_id);
            if (r == Z_OK && (r = zm_session_declare_querier(s, q.key_id, (uint8_t)o.target, &q.id)) != Z_OK) {
                z_result_t released = zm_session_undeclare_keyexpr(s, q.key_id);
                ZM_UNUSED(released);
            }
            zm_api_session_leave(b);
        }
        if (r == Z_OK) {
            q.session = b;
            zm_api_session_ref(b);
            q.target = o.target;
            q.consolidation = o.consolidation.mode;
            q.congestion_control = o.congestion_control;
            q.priority = o.priority;
            q.is_express = o.is_express;
            ZM_IF_LOCAL_QBL(q.allowed_destination = o.allowed_destination;)
            q.timeout_ms = o.timeout_ms;
            q.accept_replies = o.accept_replies;
            querier->_val = q;
        } else {
            zm_api_keyexpr_clear(&q.keyexpr);
            zm_api_encoding_clear(&q.encoding);
        }
    }
    z_encoding_drop(o.encoding);
    return r;
}

z_result_t z_undeclare_querier(z_moved_querier_t *querier)
{
    if (querier == NULL || querier->_this._val.session == NULL) {
        return Z_ENULL;
    }
    zm_api_querier_t *q = &querier->_this._val;
    /* entering fails only once the session is closed, which ended the querier already */
    z_result_t r = Z_OK;
    zm_session_t *s;
    if (zm_api_session_enter(q->session, &s) == Z_OK) {
        zm_session_undeclare_querier(s, q->id);
        r = zm_session_undeclare_keyexpr(s, q->key_id); /* the key goes with its last user */
        zm_api_session_leave(q->session);
    }
    zm_api_session_unref(q->session);
    zm_api_keyexpr_clear(&q->keyexpr);
    zm_api_encoding_clear(&q->encoding);
    z_internal_querier_null(&querier->_this);
    return r;
}

void z_querier_drop(z_moved_querier_t *obj)
{
    z_result_t r = z_undeclare_querier(obj);
    ZM_UNUSED(r);
}

z_result_t z_querier_get_with_parameters_substr(const z_loaned_querier_t *querier, const char *parameters,
                                                size_t parameters_len, z_moved_closure_reply_t *callback,
                                                z_querier_get_options_t *options)
{
    z_querier_get_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_querier_get_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    if (querier != NULL && querier->session != NULL && (parameters != NULL || parameters_len == 0)) {
        /* ZM_E_NOMEM: runs that could not be joined */
        r = zm_api_bytes_whole(o.payload) && zm_api_bytes_whole(o.attachment) ? Z_OK : ZM_E_NOMEM;
    }
    if (r == Z_OK) {
        zm_get_args_t a;
        get_parts_t parts;
        memset(&a, 0, sizeof(a));
        a.key = (const char *)querier->keyexpr.key.slice.start;
        a.key_len = querier->keyexpr.key.slice.len;
        a.parameters = zm_slice(parameters, parameters_len);
        get_body(&a, &parts, o.payload, o.encoding, o.attachment);
        if (o.encoding == NULL && (querier->encoding.id != 0 || querier->encoding.schema.slice.len > 0)) {
            const zm_api_encoding_t *e = &querier->encoding;
            a.has_body = true;
            a.encoding.id = e->id;
            a.encoding.has_schema = e->schema.slice.len > 0;
            a.encoding.schema = zm_slice(e->schema.slice.start, e->schema.slice.len);
        }
        a.target = (uint8_t)querier->target;
        a.consolidation = consolidation_of(querier->consolidation);
        a.priority = (uint8_t)querier->priority;
        a.block = querier->congestion_control != Z_CONGESTION_CONTROL_DROP;
        a.express = querier->is_express;
        a.any_key = querier->accept_replies == Z_REPLY_KEYEXPR_ANY;
        a.destination = (uint8_t)querier->allowed_destination;
        a.timeout_ms = querier->timeout_ms != 0 ? querier->timeout_ms : Z_GET_TIMEOUT_DEFAULT;
        ZM_IF_UNSTABLE(get_source(&a, &parts, o.source_info);)
        a.cancel = GET_TOKEN(o);
        r = session_get(querier->session, &a, callback);
        callback = NULL;
    }
    z_closure_reply_drop(callback);
    z_bytes_drop(o.payload);
    z_encoding_drop(o.encoding);
    z_bytes_drop(o.attachment);
    GET_TOKEN_DROP(o);
    return r;
}

z_result_t z_querier_get(const z_loaned_querier_t *querier, const char *parameters, z_moved_closure_reply_t *callback,
                         z_querier_get_options_t *options)
{
    return z_querier_get_with_parameters_substr(querier, parameters, parameters != NULL ? strlen(parameters) : 0,
                                                callback, options);
}

const z_loaned_keyexpr_t *z_querier_keyexpr(const z_loaned_querier_t *querier)
{
    return querier != NULL ? &querier->keyexpr : NULL;
}

z_entity_global_id_t z_querier_id(const z_loaned_querier_t *querier)
{
    return querier != NULL ? zm_api_entity_id(querier->session, querier->id) : zm_api_entity_id(NULL, 0);
}

#endif /* Z_FEATURE_QUERY */

/* ==== queryables and queries ========================================================================== */

#if Z_FEATURE_QUERYABLE

static void query_clear(zm_api_query_t *q)
{
    zm_api_keyexpr_clear(&q->keyexpr);
    zm_api_slice_drop(&q->parameters.slice);
    zm_api_slice_drop(&q->payload.slice);
    zm_api_encoding_clear(&q->encoding);
    zm_api_slice_drop(&q->attachment.slice);
    memset(q, 0, sizeof(*q));
}

void z_internal_query_null(z_owned_query_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_query_check(const z_owned_query_t *obj) { return obj != NULL && obj->_val.rec != NULL; }

ZM_API_DEFINE_TAKE(query)

void zm_api_query_drop(zm_api_query_t *q)
{
    if (q->rec == NULL) {
        return;
    }
    zm_session_t *s = NULL;
    bool entered = zm_api_session_enter(q->session, &s) == Z_OK;
    zm_query_release(entered ? s : NULL, q->rec); /* the last one sends the final response */
    if (entered) {
        zm_api_session_leave(q->session);
    }
    zm_api_session_unref(q->session);
    query_clear(q);
}

bool zm_api_query_droppable_during(const zm_api_query_t *q, const zm_api_query_t *during)
{
    return q->rec != NULL && during->in != NULL && during->session == q->session;
}

void zm_api_query_drop_during(zm_api_query_t *q, const zm_api_query_t *during)
{
    ZM_ASSERT(zm_api_query_droppable_during(q, during));
    zm_query_release_during(during->in, q->rec);
    zm_api_session_unref_not_last(q->session); /* during's session: open until its dispatch ends */
    query_clear(q);
}

void z_query_drop(z_moved_query_t *obj)
{
    if (obj != NULL) {
        zm_api_query_drop(&obj->_this._val);
    }
}

z_result_t zm_api_query_copy(zm_api_query_t *dst, const zm_api_query_t *src, zm_api_buffer_fn get, void *ctx)
{
    if (src->in == NULL && src->rec == NULL) {
        memset(dst, 0, sizeof(*dst));
        return Z_EINVAL;
    }
    *dst = *src;
    dst->in = NULL;
    dst->keyexpr.id = 0;
    dst->keyexpr.session = NULL;
    dst->rec = src->rec != NULL ? zm_query_rec_ref(src->rec) : zm_query_retain(src->in);
    zm_api_slice_t *parts[] = {&dst->keyexpr.key.slice, &dst->parameters.slice, &dst->payload.slice,
                               &dst->encoding.schema.slice, &dst->attachment.slice};
    z_result_t r = dst->rec != NULL ? zm_api_parts_copy(parts, ZM_ARRAY_LEN(parts), get, ctx) : ZM_E_NOMEM;
    if (r != Z_OK) {
        if (dst->rec != NULL) {
            zm_query_rec_unref_not_last(dst->rec); /* src holds one too */
        }
        memset(dst, 0, sizeof(*dst));
        return r;
    }
    zm_api_session_ref(dst->session);
    return Z_OK;
}

z_result_t z_query_clone(z_owned_query_t *dst, const z_loaned_query_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_query_null(dst);
    return src != NULL ? zm_api_query_copy(&dst->_val, src, zm_api_block_get, NULL) : Z_EINVAL;
}

z_result_t z_query_take_from_loaned(z_owned_query_t *dst, z_loaned_query_t *src)
{
    return z_query_clone(dst, src); /* the loan stays the callback's: it ends with it */
}

const z_loaned_keyexpr_t *z_query_keyexpr(const z_loaned_query_t *query) { return query != NULL ? &query->keyexpr : NULL; }

void z_query_parameters(const z_loaned_query_t *query, z_view_string_t *parameters)
{
    if (parameters == NULL) {
        return;
    }
    memset(parameters, 0, sizeof(*parameters));
    if (query != NULL) {
        parameters->_val.slice = zm_api_slice_borrow(query->parameters.slice.start, query->parameters.slice.len);
    }
}

const z_loaned_bytes_t *z_query_payload(const z_loaned_query_t *query) { return query != NULL ? &query->payload : NULL; }

const z_loaned_encoding_t *z_query_encoding(const z_loaned_query_t *query)
{
    return query != NULL ? &query->encoding : NULL;
}

const z_loaned_bytes_t *z_query_attachment(const z_loaned_query_t *query)
{
    return query != NULL ? &query->attachment : NULL;
}

const z_source_info_t *z_query_source_info(const z_loaned_query_t *query)
{
    return query != NULL && query->has_source_info ? &query->source_info : NULL;
}

/* The route of a query's replies, in *out; false for a null or dropped query. */
static bool query_route(const zm_api_query_t *q, zm_query_route_t *out)
{
    if (q->rec != NULL) {
        *out = *zm_query_rec_route(q->rec);
    } else if (q->in != NULL) {
        *out = ((const zm_query_in_t *)q->in)->route;
    } else {
        return false;
    }
    out->eid = q->eid;
    return true;
}

z_reply_keyexpr_t z_query_accepts_replies(const z_loaned_query_t *query)
{
    zm_query_route_t r;
    return query != NULL && query_route(query, &r) && r.any_key ? Z_REPLY_KEYEXPR_ANY
                                                                : Z_REPLY_KEYEXPR_MATCHING_QUERY;
}

/* Sends one reply to query through its session. */
static z_result_t query_send(const zm_api_query_t *query, const zm_reply_args_t *a)
{
    zm_query_route_t route;
    if (query == NULL || !query_route(query, &route)) {
        return Z_EINVAL;
    }
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(query->session, &s));
    z_result_t r = zm_session_reply(s, &route, a);
    zm_api_session_leave(query->session);
    return r;
}

void z_query_reply_options_default(z_query_reply_options_t *options)
{
    if (options != NULL) {
        memset(options, 0, sizeof(*options));
        options->congestion_control = Z_CONGESTION_CONTROL_BLOCK;
        options->priority = Z_PRIORITY_DEFAULT;
    }
}

void z_query_reply_del_options_default(z_query_reply_del_options_t *options)
{
    if (options != NULL) {
        memset(options, 0, sizeof(*options));
        options->congestion_control = Z_CONGESTION_CONTROL_BLOCK;
        options->priority = Z_PRIORITY_DEFAULT;
    }
}

void z_query_reply_err_options_default(z_query_reply_err_options_t *options)
{
    if (options != NULL) {
        memset(options, 0, sizeof(*options));
    }
}

z_result_t z_query_reply(const z_loaned_query_t *query, const z_loaned_keyexpr_t *keyexpr, z_moved_bytes_t *payload,
                         const z_query_reply_options_t *options)
{
    z_query_reply_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_query_reply_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    if (key_valid(keyexpr) && payload != NULL) {
        /* ZM_E_NOMEM: runs that could not be joined */
        r = zm_api_bytes_whole(payload) && zm_api_bytes_whole(o.attachment) ? Z_OK : ZM_E_NOMEM;
    }
    if (r == Z_OK) {
        zm_reply_args_t a;
        a.kind = ZM_REPLY_OK;
        zm_put_args_init(&a.put, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len);
        zm_api_put_payload(&a.put, payload);
        zm_api_put_encoding(&a.put, o.encoding != NULL ? &o.encoding->_this._val : NULL);
        zm_api_put_attachment(&a.put, o.attachment);
        zm_api_put_timestamp(&a.put, o.timestamp);
        a.put.express = o.is_express;
        ZM_IF_UNSTABLE(zm_api_put_source(&a.put, o.source_info);)
        r = query_send(query, &a);
    }
    z_bytes_drop(payload);
    z_encoding_drop(o.encoding);
    z_bytes_drop(o.attachment);
    return r;
}

z_result_t z_query_reply_del(const z_loaned_query_t *query, const z_loaned_keyexpr_t *keyexpr,
                             const z_query_reply_del_options_t *options)
{
    z_query_reply_del_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_query_reply_del_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    if (key_valid(keyexpr)) {
        /* ZM_E_NOMEM: runs that could not be joined */
        r = zm_api_bytes_whole(o.attachment) ? Z_OK : ZM_E_NOMEM;
    }
    if (r == Z_OK) {
        zm_reply_args_t a;
        a.kind = ZM_REPLY_OK;
        zm_put_args_init(&a.put, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len);
        a.put.kind = ZM_SAMPLE_DELETE;
        zm_api_put_attachment(&a.put, o.attachment);
        zm_api_put_timestamp(&a.put, o.timestamp);
        a.put.express = o.is_express;
        ZM_IF_UNSTABLE(zm_api_put_source(&a.put, o.source_info);)
        r = query_send(query, &a);
    }
    z_bytes_drop(o.attachment);
    return r;
}

z_result_t z_query_reply_err(const z_loaned_query_t *query, z_moved_bytes_t *payload,
                             const z_query_reply_err_options_t *options)
{
    z_query_reply_err_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_query_reply_err_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    if (payload != NULL) {
        /* ZM_E_NOMEM: runs that could not be joined */
        r = zm_api_bytes_whole(payload) ? Z_OK : ZM_E_NOMEM;
    }
    if (r == Z_OK) {
        zm_reply_args_t a;
        a.kind = ZM_REPLY_ERR;
        zm_put_args_init(&a.put, NULL, 0);
        zm_api_put_payload(&a.put, payload);
        zm_api_put_encoding(&a.put, o.encoding != NULL ? &o.encoding->_this._val : NULL);
        r = query_send(query, &a);
    }
    z_bytes_drop(payload);
    z_encoding_drop(o.encoding);
    return r;
}

/* ---- queryables ------------------------------------------------------------------------------------ */

/* What a queryable gives the session as its context: its session record and the user's closure. */
typedef struct {
    zm_api_session_t *session;
    zm_api_closure_query_t closure;
} qbl_ctx_t;

static void qbl_deliver(zm_query_in_t *in, void *ctx)
{
    qbl_ctx_t *c = ctx;
    zm_api_query_t q;
    memset(&q, 0, sizeof(q));
    q.session = c->session;
    q.in = in;
    q.eid = in->route.eid;
    q.keyexpr.key.slice = zm_api_slice_borrow(in->key, in->key_len);
    q.parameters.slice = zm_api_slice_borrow(in->parameters.ptr, in->parameters.len);
    q.payload.slice = zm_api_slice_borrow(in->payload.ptr, in->payload.len);
    q.encoding.id = in->encoding.id;
    if (in->encoding.has_schema) {
        q.encoding.schema.slice = zm_api_slice_borrow(in->encoding.schema.ptr, in->encoding.schema.len);
    }
    q.attachment.slice = zm_api_slice_borrow(in->attachment.ptr, in->attachment.len);
    if (in->has_source) {
        q.has_source_info = true;
        q.source_info.source_id.zid = zm_api_id_from_zid(&in->source.zid);
        q.source_info.source_id.eid = in->source.eid;
        q.source_info.source_sn = in->source.sn;
    }
    if (c->closure.call != NULL) {
        c->closure.call(&q, c->closure.context);
    }
}

static void qbl_release(void *ctx)
{
    qbl_ctx_t *c = ctx;
    if (c->closure.drop != NULL) {
        c->closure.drop(c->closure.context);
    }
    zm_free(c);
}

void z_queryable_options_default(z_queryable_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    ZM_IF_LOCAL_QBL(options->allowed_origin = Z_LOCALITY_ANY;)
}

void z_internal_queryable_null(z_owned_queryable_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_queryable_check(const z_owned_queryable_t *obj) { return obj != NULL && obj->_val.session != NULL; }

ZM_API_DEFINE_TAKE(queryable)

/* Declares on the session; takes callback on every path. */
static z_result_t declare_queryable(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                    z_moved_closure_query_t *callback, const z_queryable_options_t *options,
                                    uint32_t *id)
{
    z_queryable_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_queryable_options_default(&o);
    }
    uint8_t origin = ZM_LOCALITY_ANY;
    ZM_IF_LOCAL_QBL(origin = locality_valid(o.allowed_origin) ? (uint8_t)o.allowed_origin : 0xffu;)
    zm_api_session_t *b = record_of(zs);
    if (callback == NULL || !key_valid(keyexpr) || origin == 0xffu ||
        b == NULL) {
        z_closure_query_drop(callback);
        return Z_EINVAL;
    }
    qbl_ctx_t *c = zm_alloc(sizeof(*c));
    if (c == NULL) {
        z_closure_query_drop(callback);
        return ZM_E_NOMEM;
    }
    c->session = b; /* the queryable ends before the session record: no reference needed */
    c->closure = callback->_this._val;
    z_internal_closure_query_null(&callback->_this);
    zm_session_t *s;
    z_result_t r = zm_api_session_enter(b, &s);
    if (r == Z_OK) {
        r = zm_session_declare_queryable(s, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len,
                                         o.complete, origin, qbl_deliver, qbl_release, c, id);
        zm_api_session_leave(b);
    }
    if (r != Z_OK) {
        qbl_release(c);
    }
    return r;
}

z_result_t z_declare_queryable(const z_loaned_session_t *zs, z_owned_queryable_t *queryable,
                               const z_loaned_keyexpr_t *keyexpr, z_moved_closure_query_t *callback,
                               const z_queryable_options_t *options)
{
    if (queryable == NULL) {
        z_closure_query_drop(callback);
        return Z_EINVAL;
    }
    z_internal_queryable_null(queryable);
    uint32_t id;
    ZM_TRY(declare_queryable(zs, keyexpr, callback, options, &id));
    zm_api_queryable_t v;
    memset(&v, 0, sizeof(v));
    v.session = record_of(zs);
    v.id = id;
    if (zm_api_keyexpr_clone(&v.keyexpr, keyexpr) == Z_OK) {
        v.keyexpr.id = 0;
        v.keyexpr.session = NULL;
    }
    zm_api_session_ref(v.session);
    queryable->_val = v;
    return Z_OK;
}

z_result_t z_declare_background_queryable(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                          z_moved_closure_query_t *callback, const z_queryable_options_t *options)
{
    uint32_t id;
    return declare_queryable(zs, keyexpr, callback, options, &id);
}

z_result_t z_undeclare_queryable(z_moved_queryable_t *queryable)
{
    if (queryable == NULL || queryable->_this._val.session == NULL) {
        return Z_ENULL;
    }
    zm_api_queryable_t *v = &queryable->_this._val;
    z_result_t r = zm_api_undeclare(v->session, v->id, zm_session_undeclare_queryable);
    zm_api_keyexpr_clear(&v->keyexpr);
    z_internal_queryable_null(&queryable->_this);
    return r;
}

void z_queryable_drop(z_moved_queryable_t *obj)
{
    z_result_t r = z_undeclare_queryable(obj);
    ZM_UNUSED(r);
}

z_entity_global_id_t z_queryable_id(const z_loaned_queryable_t *queryable)
{
    return queryable != NULL ? zm_api_entity_id(queryable->session, queryable->id) : zm_api_entity_id(NULL, 0);
}

const z_loaned_keyexpr_t *z_queryable_keyexpr(const z_loaned_queryable_t *queryable)
{
    return queryable != NULL ? &queryable->keyexpr : NULL;
}

#endif /* Z_FEATURE_QUERYABLE */
