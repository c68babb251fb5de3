/*
 * The connectivity API (zmote/api/connectivity.h): transports and links as values, made from the
 * session's records (session/connectivity.h), and the listeners of their events, whose filter
 * and closure live in the context the session is given.
 */
#include <string.h>

#include "api/api.h"
#include "session/connectivity.h"

#if Z_FEATURE_CONNECTIVITY

static zm_api_session_t *record_of(const z_loaned_session_t *zs) { return zs != NULL ? zs->ptr : NULL; }

static bool zid_is_null(const z_id_t *id)
{
    static const z_id_t zero;
    return memcmp(id->id, zero.id, sizeof(zero.id)) == 0;
}

static void transport_of(zm_api_transport_t *t, const zm_conn_t *c)
{
    memset(t, 0, sizeof(*t));
    t->_zid = zm_api_id_from_zid(&c->zid);
    t->_whatami = c->whatami == ZM_WAI_ROUTER ? Z_WHATAMI_ROUTER
                  : c->whatami == ZM_WAI_PEER ? Z_WHATAMI_PEER
                                              : Z_WHATAMI_CLIENT;
    t->_is_qos = c->qos;
    t->_is_multicast = c->multicast;
}

static void link_of(zm_api_link_t *l, const zm_conn_t *c)
{
    memset(l, 0, sizeof(*l));
    l->_zid = zm_api_id_from_zid(&c->zid);
    _Static_assert(ZM_LINK_LOCATOR_MAX >= ZM_CONN_LOCATOR_MAX, "a link's locators fit its API value");
    memcpy(l->_src, c->src, sizeof(c->src));
    memcpy(l->_dst, c->dst, sizeof(c->dst));
    l->_mtu = c->mtu;
    l->_is_streamed = c->streamed;
    l->_is_reliable = c->reliable;
}

/* A filter on one transport (taken from an option), as zenoh-pico matches it: zid and kind. */
typedef struct {
    bool on;
    z_id_t zid;
    bool multicast;
} transport_filter_t;

static void filter_take(transport_filter_t *f, z_moved_transport_t *t)
{
    memset(f, 0, sizeof(*f));
    if (t != NULL && !zid_is_null(&t->_this._val._zid)) {
        f->on = true;
        f->zid = t->_this._val._zid;
        f->multicast = t->_this._val._is_multicast;
    }
    z_transport_drop(t);
}

static bool filter_pass(const transport_filter_t *f, const zm_api_link_t *l, bool multicast)
{
    return !f->on || (memcmp(f->zid.id, l->_zid.id, sizeof(f->zid.id)) == 0 && f->multicast == multicast);
}

/* ---- values ------------------------------------------------------------------------------------- */

/* The functions of a value type: null (zeroed), check (a zid), take, drop (nothing to free), clone. */
#define CONN_VALUE(name, zid_of)                                                                   \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                                         \
    {                                                                                              \
        if (obj != NULL) {                                                                         \
            memset(&obj->_val, 0, sizeof(obj->_val));                                              \
        }                                                                                          \
    }                                                                                              \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj)                                  \
    {                                                                                              \
        return obj != NULL && !zid_is_null(&obj->_val.zid_of);                                     \
    }                                                                                              \
    ZM_API_DEFINE_TAKE(name)                                                                       \
    void z_##name##_drop(z_moved_##name##_t *obj)                                                  \
    {                                                                                              \
        if (obj != NULL) {                                                                         \
            z_internal_##name##_null(&obj->_this);                                                 \
        }                                                                                          \
    }                                                                                              \
    z_result_t z_##name##_clone(z_owned_##name##_t *dst, const z_loaned_##name##_t *src)           \
    {                                                                                              \
        if (dst == NULL || src == NULL) {                                                          \
            z_internal_##name##_null(dst);                                                         \
            return Z_EINVAL;                                                                       \
        }                                                                                          \
        dst->_val = *src;                                                                          \
        return Z_OK;                                                                               \
    }                                                                                              \
    z_result_t z_##name##_take_from_loaned(z_owned_##name##_t *dst, z_loaned_##name##_t *src)      \
    {                                                                                              \
        z_result_t r = z_##name##_clone(dst, src);                                                 \
        if (r == Z_OK) {                                                                           \
            memset(src, 0, sizeof(*src));                                                          \
        }                                                                                          \
        return r;                                                                                  \
    }

CONN_VALUE(transport, _zid)
CONN_VALUE(link, _zid)
CONN_VALUE(transport_event, transport._zid)
CONN_VALUE(link_event, link._zid)

ZM_API_DEFINE_CLOSURE(closure_transport, z_loaned_transport_t *)
ZM_API_DEFINE_CLOSURE(closure_link, z_loaned_link_t *)
ZM_API_DEFINE_CLOSURE(closure_transport_event, z_loaned_transport_event_t *)
ZM_API_DEFINE_CLOSURE(closure_link_event, z_loaned_link_event_t *)

z_id_t z_transport_zid(const z_loaned_transport_t *transport) { return transport->_zid; }
z_whatami_t z_transport_whatami(const z_loaned_transport_t *transport) { return transport->_whatami; }
bool z_transport_is_qos(const z_loaned_transport_t *transport) { return transport->_is_qos; }
bool z_transport_is_multicast(const z_loaned_transport_t *transport) { return transport->_is_multicast; }
bool z_transport_is_shm(const z_loaned_transport_t *transport) { return transport->_is_shm; }

z_id_t z_link_zid(const z_loaned_link_t *link) { return link->_zid; }

static z_result_t locator_out(const char *locator, z_owned_string_t *str_out)
{
    if (str_out == NULL) {
        return Z_EINVAL;
    }
    if (locator[0] == '\0') {
        z_internal_string_null(str_out);
        return Z_EUNAVAILABLE;
    }
    return z_string_copy_from_str(str_out, locator);
}

z_result_t z_link_src(const z_loaned_link_t *link, z_owned_string_t *str_out) { return locator_out(link->_src, str_out); }
z_result_t z_link_dst(const z_loaned_link_t *link, z_owned_string_t *str_out) { return locator_out(link->_dst, str_out); }
uint16_t z_link_mtu(const z_loaned_link_t *link) { return link->_mtu; }
bool z_link_is_streamed(const z_loaned_link_t *link) { return link->_is_streamed; }
bool z_link_is_reliable(const z_loaned_link_t *link) { return link->_is_reliable; }

void z_link_group(const z_loaned_link_t *link, z_owned_string_t *str_out)
{
    ZM_UNUSED(link);
    z_internal_string_null(str_out);
}

void z_link_auth_identifier(const z_loaned_link_t *link, z_owned_string_t *str_out)
{
    ZM_UNUSED(link);
    z_internal_string_null(str_out);
}

void z_link_interfaces(const z_loaned_link_t *link, z_owned_string_array_t *interfaces_out)
{
    ZM_UNUSED(link);
    z_internal_string_array_null(interfaces_out);
}

bool z_link_priorities(const z_loaned_link_t *link, uint8_t *min_out, uint8_t *max_out)
{
    ZM_UNUSED(link);
    ZM_UNUSED(min_out);
    ZM_UNUSED(max_out);
    return false;
}

bool z_link_reliability(const z_loaned_link_t *link, z_reliability_t *reliability_out)
{
    ZM_UNUSED(link);
    ZM_UNUSED(reliability_out);
    return false;
}

z_sample_kind_t z_transport_event_kind(const z_loaned_transport_event_t *event) { return event->kind; }
const z_loaned_transport_t *z_transport_event_transport(const z_loaned_transport_event_t *event)
{
    return &event->transport;
}
z_loaned_transport_t *z_transport_event_transport_mut(z_loaned_transport_event_t *event) { return &event->transport; }
z_sample_kind_t z_link_event_kind(const z_loaned_link_event_t *event) { return event->kind; }
const z_loaned_link_t *z_link_event_link(const z_loaned_link_event_t *event) { return &event->link; }
z_loaned_link_t *z_link_event_link_mut(z_loaned_link_event_t *event) { return &event->link; }

/* ---- snapshots ------------------------------------------------------------------------------------ */

typedef struct {
    zm_api_closure_transport_t transports;
    zm_api_closure_link_t links;
    transport_filter_t filter;
} list_ctx_t;

static void list_one(const zm_conn_t *c, bool up, bool link, void *ctx)
{
    ZM_UNUSED(up);
    list_ctx_t *l = ctx;
    if (!link && l->transports.call != NULL) {
        zm_api_transport_t t;
        transport_of(&t, c);
        l->transports.call(&t, l->transports.context);
    }
    if (link && l->links.call != NULL) {
        zm_api_link_t k;
        link_of(&k, c);
        if (filter_pass(&l->filter, &k, c->multicast)) {
            l->links.call(&k, l->links.context);
        }
    }
}

static z_result_t list(const z_loaned_session_t *zs, list_ctx_t *l)
{
    zm_api_session_t *b = record_of(zs);
    zm_session_t *s;
    z_result_t r = b != NULL ? zm_api_session_enter(b, &s) : Z_EINVAL;
    if (r == Z_OK) {
        r = zm_session_conn_list(s, list_one, l);
        zm_api_session_leave(b);
    }
    return r;
}

z_result_t z_info_transports(const z_loaned_session_t *zs, z_moved_closure_transport_t *callback)
{
    if (callback == NULL) {
        return Z_EINVAL;
    }
    list_ctx_t l;
    memset(&l, 0, sizeof(l));
    l.transports = callback->_this._val;
    z_result_t r = list(zs, &l);
    z_closure_transport_drop(callback);
    return r;
}

void z_info_links_options_default(z_info_links_options_t *options)
{
    if (options != NULL) {
        options->transport = NULL;
    }
}

z_result_t z_info_links(const z_loaned_session_t *zs, z_moved_closure_link_t *callback, z_info_links_options_t *options)
{
    list_ctx_t l;
    memset(&l, 0, sizeof(l));
    filter_take(&l.filter, options != NULL ? options->transport : NULL);
    if (callback == NULL) {
        return Z_EINVAL;
    }
    l.links = callback->_this._val;
    z_result_t r = list(zs, &l);
    z_closure_link_drop(callback);
    return r;
}

/* ---- listeners ------------------------------------------------------------------------------------ */

/* What a listener gives the session as its context: the user's closure (one kind), its filter. */
typedef struct {
    zm_api_closure_transport_event_t transports;
    zm_api_closure_link_event_t links;
    transport_filter_t filter;
} listen_ctx_t;

static void listen_one(const zm_conn_t *c, bool up, bool link, void *ctx)
{
    listen_ctx_t *l = ctx;
    z_sample_kind_t kind = up ? Z_SAMPLE_KIND_PUT : Z_SAMPLE_KIND_DELETE;
    if (!link && l->transports.call != NULL) {
        zm_api_transport_event_t e;
        e.kind = kind;
        transport_of(&e.transport, c);
        l->transports.call(&e, l->transports.context);
    }
    if (link && l->links.call != NULL) {
        zm_api_link_event_t e;
        e.kind = kind;
        link_of(&e.link, c);
        if (filter_pass(&l->filter, &e.link, c->multicast)) {
            l->links.call(&e, l->links.context);
        }
    }
}

static void listen_release(void *ctx)
{
    listen_ctx_t *l = ctx;
    if (l->transports.drop != NULL) {
        l->transports.drop(l->transports.context);
    }
    if (l->links.drop != NULL) {
        l->links.drop(l->links.context);
    }
    zm_free(l);
}

/* Declares a listener of context l (allocated, released here on error): its session (a reference
 * more) and id into *session and *id, unless session is NULL (a background one). */
static z_result_t listen(const z_loaned_session_t *zs, listen_ctx_t *l, bool history, struct zm_api_session **session,
                         uint32_t *out_id)
{
    zm_api_session_t *b = record_of(zs);
    zm_session_t *s;
    uint32_t id = 0;
    z_result_t r = b != NULL ? zm_api_session_enter(b, &s) : Z_EINVAL;
    if (r == Z_OK) {
        r = zm_session_declare_conn_listener(s, history, listen_one, listen_release, l, &id);
        zm_api_session_leave(b);
    }
    if (r != Z_OK) {
        listen_release(l);
    } else if (session != NULL) {
        zm_api_session_ref(b);
        *session = b;
        *out_id = id;
    }
    return r;
}

static listen_ctx_t *listen_ctx_new(void)
{
    listen_ctx_t *l = zm_alloc(sizeof(*l));
    if (l != NULL) {
        memset(l, 0, sizeof(*l));
    }
    return l;
}

void z_transport_events_listener_options_default(z_transport_events_listener_options_t *options)
{
    if (options != NULL) {
        options->history = false;
    }
}

static z_result_t listen_transports(const z_loaned_session_t *zs, z_owned_transport_events_listener_t *listener,
                                    z_moved_closure_transport_event_t *callback,
                                    const z_transport_events_listener_options_t *options)
{
    listen_ctx_t *l = callback != NULL ? listen_ctx_new() : NULL;
    if (l == NULL) {
        z_closure_transport_event_drop(callback);
        return callback == NULL ? Z_EINVAL : ZM_E_NOMEM;
    }
    l->transports = callback->_this._val;
    z_internal_closure_transport_event_null(&callback->_this);
    return listen(zs, l, options != NULL && options->history, listener != NULL ? &listener->_val.session : NULL,
                  listener != NULL ? &listener->_val.id : NULL);
}

z_result_t z_declare_transport_events_listener(const z_loaned_session_t *zs,
                                               z_owned_transport_events_listener_t *listener,
                                               z_moved_closure_transport_event_t *callback,
                                               const z_transport_events_listener_options_t *options)
{
    z_internal_transport_events_listener_null(listener);
    if (listener == NULL) {
        z_closure_transport_event_drop(callback);
        return Z_EINVAL;
    }
    return listen_transports(zs, listener, callback, options);
}

z_result_t z_declare_background_transport_events_listener(const z_loaned_session_t *zs,
                                                          z_moved_closure_transport_event_t *callback,
                                                          const z_transport_events_listener_options_t *options)
{
    return listen_transports(zs, NULL, callback, options);
}

void z_link_events_listener_options_default(z_link_events_listener_options_t *options)
{
    if (options != NULL) {
        options->history = false;
        options->transport = NULL;
    }
}

static z_result_t listen_links(const z_loaned_session_t *zs, z_owned_link_events_listener_t *listener,
                               z_moved_closure_link_event_t *callback, z_link_events_listener_options_t *options)
{
    transport_filter_t filter;
    filter_take(&filter, options != NULL ? options->transport : NULL);
    listen_ctx_t *l = callback != NULL ? listen_ctx_new() : NULL;
    if (l == NULL) {
        z_closure_link_event_drop(callback);
        return callback == NULL ? Z_EINVAL : ZM_E_NOMEM;
    }
    l->links = callback->_this._val;
    l->filter = filter;
    z_internal_closure_link_event_null(&callback->_this);
    return listen(zs, l, options != NULL && options->history, listener != NULL ? &listener->_val.session : NULL,
                  listener != NULL ? &listener->_val.id : NULL);
}

z_result_t z_declare_link_events_listener(const z_loaned_session_t *zs, z_owned_link_events_listener_t *listener,
                                          z_moved_closure_link_event_t *callback,
                                          z_link_events_listener_options_t *options)
{
    z_internal_link_events_listener_null(listener);
    if (listener == NULL) {
        z_closure_link_event_drop(callback);
        return Z_EINVAL;
    }
    return listen_links(zs, listener, callback, options);
}

z_result_t z_declare_background_link_events_listener(const z_loaned_session_t *zs,
                                                     z_moved_closure_link_event_t *callback,
                                                     z_link_events_listener_options_t *options)
{
    return listen_links(zs, NULL, callback, options);
}

/* The functions of a listener type: null, check, take, undeclare and drop (which undeclares). */
#define CONN_LISTENER(name)                                                                        \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                                         \
    {                                                                                              \
        if (obj != NULL) {                                                                         \
            memset(&obj->_val, 0, sizeof(obj->_val));                                              \
        }                                                                                          \
    }                                                                                              \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj)                                  \
    {                                                                                              \
        return obj != NULL && obj->_val.session != NULL;                                           \
    }                                                                                              \
    ZM_API_DEFINE_TAKE(name)                                                                       \
    z_result_t z_undeclare_##name(z_moved_##name##_t *listener)                                    \
    {                                                                                              \
        if (listener == NULL || listener->_this._val.session == NULL) {                            \
            return Z_ENULL;                                                                        \
        }                                                                                          \
        z_result_t r = zm_api_undeclare(listener->_this._val.session, listener->_this._val.id,     \
                                        zm_session_undeclare_conn_listener);                       \
        z_internal_##name##_null(&listener->_this);                                                \
        return r;                                                                                  \
    }                                                                                              \
    void z_##name##_drop(z_moved_##name##_t *obj)                                                  \
    {                                                                                              \
        z_result_t r = z_undeclare_##name(obj);                                                    \
        ZM_UNUSED(r);                                                                              \
    }

CONN_LISTENER(transport_events_listener)
CONN_LISTENER(link_events_listener)

#endif /* Z_FEATURE_CONNECTIVITY */
