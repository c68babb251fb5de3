/*
 * Publication and subscription of the API: z_put / z_delete, publishers and subscribers. Each
 * call checks its arguments, turns the API's objects into the session's borrowed views (no copy,
 * no allocation per message) and releases what it was given, on every path.
 */
#include <string.h>

#include "api/api.h"

#if Z_FEATURE_PUBLICATION || Z_FEATURE_SUBSCRIPTION
static zm_api_session_t *record_of(const z_loaned_session_t *zs) { return zs != NULL ? zs->ptr : NULL; }

#if Z_FEATURE_PUBLICATION
static bool priority_valid(z_priority_t p) { return p >= Z_PRIORITY_REAL_TIME && p <= Z_PRIORITY_BACKGROUND; }

static bool congestion_valid(z_congestion_control_t c)
{
    return c == Z_CONGESTION_CONTROL_DROP || c == Z_CONGESTION_CONTROL_BLOCK;
}
#endif

#if Z_FEATURE_LOCAL_SUBSCRIBER
static bool locality_valid(z_locality_t l)
{
    return l == Z_LOCALITY_ANY || l == Z_LOCALITY_SESSION_LOCAL || l == Z_LOCALITY_REMOTE;
}
#endif

static bool key_valid(const zm_api_keyexpr_t *k) { return k != NULL && k->key.slice.len > 0; }
#endif

#if Z_FEATURE_PUBLICATION
/* Sends a on the session b; Z_ESESSION_CLOSED once it is closed. */
static z_result_t session_put(zm_api_session_t *b, const zm_put_args_t *a)
{
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(b, &s));
    z_result_t r = zm_session_put(s, a);
    zm_api_session_leave(b);
    return r;
}

/* The same for z_put and z_delete, on key, by its id where key was declared on b. */
static z_result_t keyed_put(zm_api_session_t *b, zm_put_args_t *a, const zm_api_keyexpr_t *key)
{
    if (key->id != 0 && key->session == b) {
        a->key_id = key->id;
    }
    return session_put(b, a);
}

/* ---- put and delete -------------------------------------------------------------------------------- */

void z_put_options_default(z_put_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    options->congestion_control = Z_CONGESTION_CONTROL_DEFAULT;
    options->priority = Z_PRIORITY_DEFAULT;
    ZM_IF_LOCAL_SUB(options->allowed_destination = Z_LOCALITY_ANY;)
    ZM_IF_UNSTABLE(options->reliability = Z_RELIABILITY_DEFAULT;)
}

void z_delete_options_default(z_delete_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    options->congestion_control = Z_CONGESTION_CONTROL_DEFAULT;
    options->priority = Z_PRIORITY_DEFAULT;
    ZM_IF_LOCAL_SUB(options->allowed_destination = Z_LOCALITY_ANY;)
    ZM_IF_UNSTABLE(options->reliability = Z_RELIABILITY_DEFAULT;)
}

z_result_t z_put(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr, z_moved_bytes_t *payload,
                 const z_put_options_t *options)
{
    z_put_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_put_options_default(&o);
    }
    z_result_t r = Z_EINVAL;
    if (key_valid(keyexpr) && payload != NULL && priority_valid(o.priority) && congestion_valid(o.congestion_control)
        ZM_IF_LOCAL_SUB(&& locality_valid(o.allowed_destination))
    ) {
        /* ZM_E_NOMEM: runs that could not be joined */
        r = zm_api_bytes_whole(payload) && zm_api_bytes_whole(o.attachment) ? Z_OK : ZM_E_NOMEM;
    }
    if (r == Z_OK) {
        zm_put_args_t a;
        zm_put_args_init(&a, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len);
        a.kind = ZM_SAMPLE_PUT;
        zm_api_put_payload(&a, payload);
        zm_api_put_encoding(&a, o.encoding != NULL ? &o.encoding->_this._val : NULL);
        zm_api_put_attachment(&a, o.attachment);
        zm_api_put_timestamp(&a, o.timestamp);
        a.priority = (uint8_t)o.priority;
        a.block = o.congestion_control == Z_CONGESTION_CONTROL_BLOCK;
        a.express = o.is_express;
        ZM_IF_LOCAL_SUB(a.destination = (uint8_t)o.allowed_destination;)
        ZM_IF_UNSTABLE(a.reliable = o.reliability != Z_RELIABILITY_BEST_EFFORT; zm_api_put_source(&a, o.source_info);)
        r = keyed_put(record_of(zs), &a, keyexpr);
    }
    z_bytes_drop(payload);
    z_encoding_drop(o.encoding);
    z_bytes_drop(o.attachment);
    return r;
}

z_result_t z_delete(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                    const z_delete_options_t *options)
{
    z_delete_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_delete_options_default(&o);
    }
    if (!key_valid(keyexpr) || !priority_valid(o.priority) || !congestion_valid(o.congestion_control)
        ZM_IF_LOCAL_SUB(|| !locality_valid(o.allowed_destination))
    ) {
        return Z_EINVAL;
    }
    zm_put_args_t a;
    zm_put_args_init(&a, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len);
    a.kind = ZM_SAMPLE_DELETE;
    zm_api_put_timestamp(&a, o.timestamp);
    a.priority = (uint8_t)o.priority;
    a.block = o.congestion_control == Z_CONGESTION_CONTROL_BLOCK;
    a.express = o.is_express;
    ZM_IF_LOCAL_SUB(a.destination = (uint8_t)o.allowed_destination;)
    ZM_IF_UNSTABLE(a.reliable = o.reliability != Z_RELIABILITY_BEST_EFFORT; zm_api_put_source(&a, o.source_info);)
    return keyed_put(record_of(zs), &a, keyexpr);
}

/* ---- publishers --------------------------------------------------------------------------------- */

void z_publisher_options_default(z_publisher_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    options->congestion_control = Z_CONGESTION_CONTROL_DEFAULT;
    options->priority = Z_PRIORITY_DEFAULT;
    ZM_IF_UNSTABLE(options->reliability = Z_RELIABILITY_DEFAULT;)
    ZM_IF_LOCAL_SUB(options->allowed_destination = Z_LOCALITY_ANY;)
}

void z_publisher_put_options_default(z_publisher_put_options_t *options)
{
    if (options != NULL) {
        memset(options, 0, sizeof(*options));
    }
}

void z_publisher_delete_options_default(z_publisher_delete_options_t *options)
{
    if (options != NULL) {
        memset(options, 0, sizeof(*options));
    }
}

void z_internal_publisher_null(z_owned_publisher_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_publisher_check(const z_owned_publisher_t *obj) { return obj != NULL && obj->_val.session != NULL; }

ZM_API_DEFINE_TAKE(publisher)

_Static_assert(Z_RELIABILITY_DEFAULT == 0 && Z_LOCALITY_ANY == 0, "a nulled publisher has the default QoS");
_Static_assert(sizeof(((zm_api_publisher_t *)0)->head) == ZM_PUT_HEAD_SIZE, "a publisher holds its puts' head");

/* The put of a publisher: its key, id and QoS. */
static void publisher_args(const zm_api_publisher_t *p, zm_put_args_t *a, uint8_t kind)
{
    zm_put_args_init(a, (const char *)p->keyexpr.key.slice.start, p->keyexpr.key.slice.len);
    a->key_id = p->key_id;
    if (kind != ZM_SAMPLE_PUT) { /* a PUT is what zm_put_args_init made */
        a->kind = kind;
    }
    a->priority = (uint8_t)p->priority;
    a->block = p->congestion_control == Z_CONGESTION_CONTROL_BLOCK;
    a->express = p->is_express;
    ZM_IF_UNSTABLE(a->reliable = p->reliability != Z_RELIABILITY_BEST_EFFORT;) /* else reliable, as zm_put_args_init has it */
    ZM_IF_LOCAL_SUB(a->destination = (uint8_t)p->allowed_destination;) /* else anywhere, as zm_put_args_init has it */
}


z_result_t z_declare_publisher(const z_loaned_session_t *zs, z_owned_publisher_t *pub,
                               const z_loaned_keyexpr_t *keyexpr, const z_publisher_options_t *options)
{
    z_publisher_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_publisher_options_default(&o);
    }
    /* built in place: a failure leaves it null again (the cleared key is null, ids stay unset) */
    z_result_t r = Z_EINVAL;
    zm_api_session_t *b = NULL;
    if (pub != NULL) {
        z_internal_publisher_null(pub);
        if (key_valid(keyexpr) && priority_valid(o.priority) && congestion_valid(o.congestion_control)
            ZM_IF_LOCAL_SUB(&& locality_valid(o.allowed_destination))
        ) {
            r = zm_api_keyexpr_clone(&pub->_val.keyexpr, keyexpr);
        }
    }
    if (r == Z_OK) {
        zm_api_publisher_t *p = &pub->_val;
        p->keyexpr.id = 0; /* the publisher's own key id replaces a declared one */
        p->keyexpr.session = NULL;
        b = record_of(zs);
        zm_session_t *s;
        r = zm_api_session_enter(b, &s);
        if (r == Z_OK) {
            /* its key expression first, which goes again when the publisher fails */
            r = zm_session_declare_keyexpr(s, (const char *)p->keyexpr.key.slice.start, p->keyexpr.key.slice.len,
                                           &p->key_id);
            if (r == Z_OK && (r = zm_session_declare_publisher(s, p->key_id, &p->id)) != Z_OK) {
                z_result_t released = zm_session_undeclare_keyexpr(s, p->key_id);
                ZM_UNUSED(released);
            }
            zm_api_session_leave(b);
        }
        if (r != Z_OK) {
            zm_api_keyexpr_clear(&p->keyexpr);
        }
    }
    /* every failure drops the encoding the options gave, as a success takes it */
    if (r != Z_OK) {
        z_encoding_drop(o.encoding);
        return r;
    }
    zm_api_publisher_t *p = &pub->_val;
    if (o.encoding != NULL) {
        p->encoding = o.encoding->_this._val;
        z_internal_encoding_null(&o.encoding->_this);
    }
    p->congestion_control = o.congestion_control;
    p->priority = o.priority;
    p->is_express = o.is_express;
    /* without the options that set them, reliability and destination keep the defaults the
     * nulling gave them (Z_RELIABILITY_DEFAULT and Z_LOCALITY_ANY are 0) */
    ZM_IF_UNSTABLE(p->reliability = o.reliability;)
    ZM_IF_LOCAL_SUB(p->allowed_destination = o.allowed_destination;)
#if ZM_PUT_HEAD
    zm_put_args_t a; /* a put without options, of an empty payload */
    publisher_args(p, &a, ZM_SAMPLE_PUT);
    zm_api_put_encoding(&a, &p->encoding);
    zm_session_put_head_make(&a, p->head);
#endif
    zm_api_session_ref(b);
    p->session = b;
    return Z_OK;
}

z_result_t z_undeclare_publisher(z_moved_publisher_t *pub)
{
    if (pub == NULL || pub->_this._val.session == NULL) {
        return Z_ENULL;
    }
    zm_api_publisher_t *p = &pub->_this._val;
    /* entering fails only once the session is closed, which ended the publisher already */
    z_result_t r = Z_OK;
    zm_session_t *s;
    if (zm_api_session_enter(p->session, &s) == Z_OK) {
        zm_session_undeclare_publisher(s, p->id);
        r = zm_session_undeclare_keyexpr(s, p->key_id); /* the key goes with its last user */
        zm_api_session_leave(p->session);
    }
    zm_api_session_unref(p->session);
    /* the references dropped, then all of it nulled at once */
    zm_owner_unref(p->keyexpr.key.slice.owner);
    zm_owner_unref(p->encoding.schema.slice.owner);
    z_internal_publisher_null(&pub->_this);
    return r;
}

void z_publisher_drop(z_moved_publisher_t *obj)
{
    z_result_t r = z_undeclare_publisher(obj);
    ZM_UNUSED(r);
}

#if ZM_PUT_HEAD
/* Whether a publisher's put with options o is one without: none given, or all of them null. */
static bool put_options_none(const z_publisher_put_options_t *o)
{
    return o == NULL || (o->encoding == NULL && o->timestamp == NULL && o->attachment == NULL
                         ZM_IF_UNSTABLE(&& o->source_info == NULL));
}

/* A put without options of payload (one run) by the head p keeps: true when done (sent, or
 * refused with *r), false when it must take the general path (zm_session_put_head). */
static bool put_by_head(const zm_api_publisher_t *p, const z_moved_bytes_t *payload, z_result_t *r)
{
    zm_session_t *s;
    *r = zm_api_session_enter_inline(p->session, &s); /* Z_ENULL for a dropped publisher, its session NULL */
    if (*r != Z_OK) {
        return true;
    }
    bool done = zm_session_put_head(s, p->key_id, p->head,
                                    zm_slice(payload->_this._val.slice.start, payload->_this._val.slice.len), r);
    zm_api_session_leave(p->session);
    return done;
}
#endif

z_result_t z_publisher_put(const z_loaned_publisher_t *pub, z_moved_bytes_t *payload,
                           const z_publisher_put_options_t *options)
{
#if ZM_PUT_HEAD
    /* the common put: a publisher's payload of one run (joined runs have a start), no option */
    z_result_t done;
    if (pub != NULL && payload != NULL && pub->head[0] != 0 && payload->_this._val.slice.start != NULL &&
        put_options_none(options) && put_by_head(pub, payload, &done)) {
        zm_api_slice_drop(&payload->_this._val.slice);
        return done;
    }
#endif
    /* The defaults are all null: read the caller's options, or a null set, in place. */
    static z_publisher_put_options_t none;
    const z_publisher_put_options_t *o = options != NULL ? options : &none;
    z_result_t r;
    if (pub == NULL) {
        r = Z_ENULL; /* a dropped publisher (its session NULL) has Z_ENULL from session_put */
    } else if (payload == NULL) {
        r = Z_EINVAL;
    } else if (!zm_api_bytes_whole(payload) || !zm_api_bytes_whole(o->attachment)) {
        r = ZM_E_NOMEM; /* runs that could not be joined */
    } else {
        zm_put_args_t a;
        publisher_args(pub, &a, ZM_SAMPLE_PUT);
        zm_api_put_payload(&a, payload);
        zm_api_put_encoding(&a, o->encoding != NULL ? &o->encoding->_this._val : &pub->encoding);
        zm_api_put_attachment(&a, o->attachment);
        zm_api_put_timestamp(&a, o->timestamp);
        ZM_IF_UNSTABLE(zm_api_put_source(&a, o->source_info);)
        r = session_put(pub->session, &a);
    }
    z_bytes_drop(payload);
    z_encoding_drop(o->encoding);
    z_bytes_drop(o->attachment);
    return r;
}

z_result_t z_publisher_delete(const z_loaned_publisher_t *pub, const z_publisher_delete_options_t *options)
{
    if (pub == NULL || pub->session == NULL) {
        return Z_ENULL;
    }
    z_publisher_delete_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        z_publisher_delete_options_default(&o);
    }
    zm_put_args_t a;
    publisher_args(pub, &a, ZM_SAMPLE_DELETE);
    zm_api_put_timestamp(&a, o.timestamp);
    ZM_IF_UNSTABLE(zm_api_put_source(&a, o.source_info);)
    return session_put(pub->session, &a);
}

const z_loaned_keyexpr_t *z_publisher_keyexpr(const z_loaned_publisher_t *publisher)
{
    return publisher != NULL ? &publisher->keyexpr : NULL;
}

#if ZM_UNSTABLE_API
z_entity_global_id_t z_publisher_id(const z_loaned_publisher_t *publisher)
{
    return publisher != NULL ? zm_api_entity_id(publisher->session, publisher->id) : zm_api_entity_id(NULL, 0);
}
#endif


#endif /* Z_FEATURE_PUBLICATION */

/* ---- subscribers -------------------------------------------------------------------------------- */

#if Z_FEATURE_SUBSCRIPTION

void z_subscriber_options_default(z_subscriber_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    ZM_IF_LOCAL_SUB(options->allowed_origin = Z_LOCALITY_ANY;)
}

void z_internal_subscriber_null(z_owned_subscriber_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_subscriber_check(const z_owned_subscriber_t *obj) { return obj != NULL && obj->_val.session != NULL; }

ZM_API_DEFINE_TAKE(subscriber)

/* Declares on the session; takes callback on every path. key, when not NULL, gets a copy of the
 * key expression for z_subscriber_keyexpr. */
static z_result_t subscribe(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                            z_moved_closure_sample_t *callback, const z_subscriber_options_t *options,
                            zm_api_keyexpr_t *key, uint32_t *id)
{
    if (callback == NULL) {
        return Z_EINVAL;
    }
    uint8_t origin = ZM_LOCALITY_ANY;
#if Z_FEATURE_LOCAL_SUBSCRIBER
    if (options != NULL) {
        if (!locality_valid(options->allowed_origin)) {
            z_closure_sample_drop(callback);
            return Z_EINVAL;
        }
        origin = (uint8_t)options->allowed_origin;
    }
#else
    ZM_UNUSED(options);
#endif
    if (!key_valid(keyexpr)) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
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
        r = zm_session_declare_subscriber(s, (const char *)keyexpr->key.slice.start, keyexpr->key.slice.len, origin,
                                          zm_api_subscriber_deliver, zm_api_subscriber_release, ctx, id);
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

z_result_t z_declare_subscriber(const z_loaned_session_t *zs, z_owned_subscriber_t *sub,
                                const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                const z_subscriber_options_t *options)
{
    if (sub == NULL) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
    z_internal_subscriber_null(sub);
    zm_api_subscriber_t *v = &sub->_val; /* a failure leaves it null */
    ZM_TRY(subscribe(zs, keyexpr, callback, options, &v->keyexpr, &v->id));
    v->session = record_of(zs);
    zm_api_session_ref(v->session);
    return Z_OK;
}

z_result_t z_declare_background_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                           z_moved_closure_sample_t *callback,
                                           const z_subscriber_options_t *options)
{
    uint32_t id;
    return subscribe(zs, keyexpr, callback, options, NULL, &id);
}

z_result_t z_undeclare_subscriber(z_moved_subscriber_t *sub)
{
    if (sub == NULL || sub->_this._val.session == NULL) {
        return Z_ENULL;
    }
    zm_api_subscriber_t *v = &sub->_this._val;
#if Z_FEATURE_LIVELINESS
    z_result_t r = zm_api_undeclare(v->session, v->id, v->liveliness ? zm_session_undeclare_liveliness_subscriber
                                                                      : zm_session_undeclare_subscriber);
#else
    z_result_t r = zm_api_undeclare(v->session, v->id, zm_session_undeclare_subscriber);
#endif
    zm_api_keyexpr_clear(&v->keyexpr);
    z_internal_subscriber_null(&sub->_this);
    return r;
}

void z_subscriber_drop(z_moved_subscriber_t *obj)
{
    z_result_t r = z_undeclare_subscriber(obj);
    ZM_UNUSED(r);
}

const z_loaned_keyexpr_t *z_subscriber_keyexpr(const z_loaned_subscriber_t *subscriber)
{
    return subscriber != NULL ? &subscriber->keyexpr : NULL;
}

#if ZM_UNSTABLE_API
z_entity_global_id_t z_subscriber_id(const z_loaned_subscriber_t *subscriber)
{
    return subscriber != NULL ? zm_api_entity_id(subscriber->session, subscriber->id) : zm_api_entity_id(NULL, 0);
}
#endif
#endif /* Z_FEATURE_SUBSCRIPTION */
