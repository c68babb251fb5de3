/*
 * Sessions of the API: opening one from a configuration, closing it, what it knows about itself
 * and its peers, declared key expressions, timestamps, the admin space, and the calls that drive
 * it (tasks, single-thread reads, batching). The owned session, its publishers and its
 * subscribers share one counted record, so each may be dropped in any order, before or after the
 * session closes.
 */
#include <string.h>

#include "api/api.h"
#include "zmote/port.h"

/* ---- the shared record ----------------------------------------------------------------------------- */

void zm_api_session_ref(zm_api_session_t *b) { zm_atomic_inc(&b->refs); }

/*
 * Closes the session b holds, once, after every call under way on it has ended. Inside the
 * session (one of its callbacks, its tasks) the close only begins, and b keeps the session: the
 * next close from outside (z_close, the session's drop) ends it; unless b goes (last): then the
 * session ends its close by itself (zm_session_close_detached).
 */
static void session_close(zm_api_session_t *b, bool last)
{
    bool here = true;
    if (Z_FEATURE_MULTI_THREAD || ZM_APP_CALLBACKS) { /* else nothing runs inside the session */
        zm_session_t *open;
        if (zm_api_session_enter(b, &open) != Z_OK) {
            return;
        }
        here = zm_session_close_begin(open); /* counted as a call: s stays while it begins */
        zm_api_session_leave(b);
        if (!here && !last) {
            return;
        }
    }
#if Z_FEATURE_MULTI_THREAD
    zm_session_t *s = atomic_exchange(&b->s, NULL);
#else
    zm_session_t *s = b->s;
    b->s = NULL;
#endif
    if (s == NULL) {
        return; /* another thread ends it */
    }
    if (!here) {
        zm_session_close_detached(s);
    } else {
#if Z_FEATURE_SESSION_CHECK /* else no call is counted (zm_api_session_enter) */
        while (zm_atomic_load(&b->users) != 0) {
            zm_port_sleep_ms(1);
        }
#endif
        zm_session_close(s);
    }
    ZM_IF_THREADS(zm_atomic_store(&b->read_task, false); zm_atomic_store(&b->lease_task, false);)
}

void zm_api_session_unref(zm_api_session_t *b)
{
    if (b != NULL && zm_atomic_dec(&b->refs) == 1u) {
        session_close(b, true);
        zm_free(b);
    }
}

void zm_api_session_unref_not_last(zm_api_session_t *b)
{
    unsigned before = zm_atomic_dec(&b->refs);
    ZM_ASSERT(before > 1u);
    ZM_UNUSED(before);
}

z_result_t zm_api_session_enter(zm_api_session_t *b, zm_session_t **out) { return zm_api_session_enter_inline(b, out); }

static zm_api_session_t *record_of(const z_loaned_session_t *zs) { return zs != NULL ? zs->ptr : NULL; }

/* ---- per-type functions -------------------------------------------------------------------------- */

void z_internal_session_null(z_owned_session_t *obj)
{
    if (obj != NULL) {
        obj->_rc.ptr = NULL;
    }
}

bool z_internal_session_check(const z_owned_session_t *obj) { return obj != NULL && obj->_rc.ptr != NULL; }

void z_session_take(z_owned_session_t *obj, z_moved_session_t *src)
{
    if (obj == NULL) {
        return;
    }
    obj->_rc.ptr = src != NULL ? src->_this._rc.ptr : NULL;
    if (src != NULL) {
        src->_this._rc.ptr = NULL;
    }
}

void z_session_drop(z_moved_session_t *obj)
{
    if (obj == NULL || obj->_this._rc.ptr == NULL) {
        return;
    }
    zm_api_session_t *b = obj->_this._rc.ptr;
    obj->_this._rc.ptr = NULL;
    session_close(b, false);
    zm_api_session_unref(b);
}

/* ---- the admin space ------------------------------------------------------------------------------ */

/*
 * A queryable of the session on its admin key (zp_start_admin_space), which answers each query
 * with the entries the session writes (zm_session_admin_answer), one reply in JSON each. Its id
 * is kept in the shared record, so that starting twice declares one queryable and stopping
 * undeclares it.
 */
#if ZM_UNSTABLE_API && Z_FEATURE_ADMIN_SPACE

#define ENCODING_APPLICATION_JSON 5u

typedef struct {
    zm_session_t *s;
    const zm_query_in_t *q;
} admin_query_t;

static void reply_entry(const char *key, size_t key_len, const char *json, size_t json_len, void *ctx)
{
    static const zm_encoding_t encoding = {ENCODING_APPLICATION_JSON, false, {NULL, 0}};
    const admin_query_t *aq = ctx;
    zm_reply_args_t a;
    a.kind = ZM_REPLY_OK;
    zm_put_args_init(&a.put, key, key_len);
    a.put.body.payload = zm_slice(json, json_len);
    a.put.body.has_encoding = true;
    a.put.body.encoding = encoding;
    z_result_t rc = zm_session_reply(aq->s, &aq->q->route, &a);
    ZM_UNUSED(rc); /* the querier may be gone: nothing to do about it */
}

static void on_query(zm_query_in_t *q, void *ctx)
{
    admin_query_t aq = {ctx, q};
    z_result_t rc = zm_session_admin_answer(aq.s, q->key, q->key_len, reply_entry, &aq);
    ZM_UNUSED(rc); /* out of memory: the querier gets its final alone */
}

static z_result_t admin_start(zm_api_session_t *b, zm_session_t *s)
{
    if (zm_atomic_load(&b->admin_qid) != 0) {
        return Z_OK;
    }
    char key[ZM_ADMIN_KEY_MAX];
    size_t len = zm_session_admin_key(s, key);
    uint32_t qid;
    ZM_TRY(zm_session_declare_queryable(s, key, len, false, ZM_LOCALITY_ANY, on_query, NULL, s, &qid));
    uint32_t held = 0;
    while (!zm_atomic_cas_relaxed(&b->admin_qid, &held, qid)) {
        if (held != 0) { /* two starts at once: one queryable stays */
            return zm_session_undeclare_queryable(s, qid);
        }
    }
    return Z_OK;
}

z_result_t zp_start_admin_space(z_loaned_session_t *zs)
{
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
    z_result_t r = admin_start(record_of(zs), s);
    zm_api_session_leave(record_of(zs));
    return r;
}

z_result_t zp_stop_admin_space(z_loaned_session_t *zs)
{
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
    uint32_t qid = zm_atomic_load(&record_of(zs)->admin_qid);
    while (qid != 0 && !zm_atomic_cas_relaxed(&record_of(zs)->admin_qid, &qid, 0u)) {
    }
    z_result_t r = qid != 0 ? zm_session_undeclare_queryable(s, qid) : Z_OK;
    zm_api_session_leave(record_of(zs));
    return r;
}

#endif /* ZM_UNSTABLE_API && Z_FEATURE_ADMIN_SPACE */

/* ---- opening and closing ---------------------------------------------------------------------------- */

void z_open_options_default(z_open_options_t *options)
{
    if (options == NULL) {
        return;
    }
    memset(options, 0, sizeof(*options));
    ZM_IF_THREADS(options->auto_start_read_task = true;)
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    char lower = (char)(c | 0x20); /* only 'A'..'F' and 'a'..'f' become 'a'..'f' */
    if (lower >= 'a' && lower <= 'f') {
        return lower - 'a' + 10;
    }
    return -1;
}

/*
 * A zid from the configuration: 32 hex digits, dashes (of a UUID) ignored, the first two digits
 * giving byte 0 as zenoh-pico reads it. All-zero or malformed text is Z_EINVAL.
 */
static z_result_t zid_parse(const char *text, zm_zid_t *zid)
{
    uint8_t *raw = zid->id; /* what is left there on error goes unused */
    size_t digits = 0;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '-') {
            continue;
        }
        int v = hex_value(*p);
        if (v < 0 || digits == 32) {
            return Z_EINVAL;
        }
        /* a digit shifts in from the right: a byte's first digit pushes out whatever was there */
        raw[digits / 2] = (uint8_t)(raw[digits / 2] << 4 | v);
        digits++;
    }
    if (digits != 32) {
        return Z_EINVAL;
    }
    zid->len = zm_zid_trim(raw);
    return zid->len != 0 ? Z_OK : Z_EINVAL;
}

#if Z_FEATURE_SCOUTING
/* z_scout reads the zid too; open keeps its own call inlined. */
z_result_t zm_api_zid_parse(const char *text, zm_zid_t *zid) { return zid_parse(text, zid); }
#endif

/* Reads what a session needs from the configuration; the strings stay in config. */
static z_result_t session_config(const zm_api_config_t *c, zm_session_config_t *sc)
{
    memset(sc, 0, sizeof(*sc));
    const char *mode = zp_config_get(c, Z_CONFIG_MODE_KEY);
    if (mode == NULL || strcmp(mode, Z_CONFIG_MODE_CLIENT) == 0) {
        sc->mode = ZM_MODE_CLIENT;
    } else if (strcmp(mode, Z_CONFIG_MODE_PEER) == 0) {
        sc->mode = ZM_MODE_PEER;
    } else {
        return _Z_ERR_CONFIG_INVALID_MODE;
    }
    for (size_t i = 0; i < c->n && i < ZM_CONFIG_ENTRIES_MAX; i++) {
        const zm_api_config_entry_t *e = &c->entries[i];
        bool connect = e->key == Z_CONFIG_CONNECT_KEY;
        if (!connect && e->key != Z_CONFIG_LISTEN_KEY) {
            continue;
        }
        const char **list = connect ? sc->connect : sc->listen;
        size_t *n = connect ? &sc->n_connect : &sc->n_listen;
        if (*n == ZM_ENDPOINTS_MAX) {
            return Z_EINVAL;
        }
        list[(*n)++] = e->value;
    }
    if (sc->n_listen > 0) {
        sc->mode = ZM_MODE_PEER; /* listening makes a peer, whatever the mode says */
    }
#if Z_FEATURE_SCOUTING
    ZM_TRY(zm_api_scout_config(c, &sc->scouting, &sc->scout_locator, &sc->scout_what, &sc->scout_timeout_ms));
    if (sc->n_connect == 0 && sc->n_listen == 0 && !sc->scouting) {
        return Z_EINVAL; /* nothing to connect to, and no scouting to find it (Rust refuses it too) */
    }
#else
    if (sc->n_connect == 0 && sc->n_listen == 0) {
        return ZM_E_UNSUPPORTED; /* it would scout, and this build does not */
    }
#endif
#if Z_FEATURE_LINK_TLS
    zm_tls_config_t *t = &sc->tls;
    t->root_ca = zp_config_get(c, Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_KEY);
    t->root_ca_base64 = zp_config_get(c, Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_BASE64_KEY);
    t->listen_key = zp_config_get(c, Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_KEY);
    t->listen_key_base64 = zp_config_get(c, Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_BASE64_KEY);
    t->listen_cert = zp_config_get(c, Z_CONFIG_TLS_LISTEN_CERTIFICATE_KEY);
    t->listen_cert_base64 = zp_config_get(c, Z_CONFIG_TLS_LISTEN_CERTIFICATE_BASE64_KEY);
    t->enable_mtls = zp_config_get(c, Z_CONFIG_TLS_ENABLE_MTLS_KEY);
    t->connect_key = zp_config_get(c, Z_CONFIG_TLS_CONNECT_PRIVATE_KEY_KEY);
    t->connect_key_base64 = zp_config_get(c, Z_CONFIG_TLS_CONNECT_PRIVATE_KEY_BASE64_KEY);
    t->connect_cert = zp_config_get(c, Z_CONFIG_TLS_CONNECT_CERTIFICATE_KEY);
    t->connect_cert_base64 = zp_config_get(c, Z_CONFIG_TLS_CONNECT_CERTIFICATE_BASE64_KEY);
    t->verify_name = zp_config_get(c, Z_CONFIG_TLS_VERIFY_NAME_ON_CONNECT_KEY);
#endif
    const char *zid = zp_config_get(c, Z_CONFIG_SESSION_ZID_KEY);
    if (zid != NULL) {
        ZM_TRY(zid_parse(zid, &sc->zid)); /* never of len 0 */
    }
#if ZM_AUTH_USRPWD /* checked by zm_session_open */
    sc->user = zp_config_get(c, Z_CONFIG_USER_KEY);
    sc->password = zp_config_get(c, Z_CONFIG_PASSWORD_KEY);
    sc->usrpwd_dict = zp_config_get(c, ZM_CONFIG_USRPWD_DICTIONARY_KEY);
#endif
    if (Z_FEATURE_AUTO_RECONNECT) { /* else false, as the memset left it */
        sc->auto_reconnect = sc->mode == ZM_MODE_CLIENT;
    }
    /* zenoh-pico's defaults, as the memset left them: each endpoint once, a peer goes on without
     * some connect endpoints but not without its listen endpoint (a client always needs one) */
#if ZM_UNSTABLE_API
    bool listen_exit;
    ZM_TRY(zm_api_config_timeout(c, Z_CONFIG_CONNECT_TIMEOUT_KEY, Z_CONFIG_CONNECT_TIMEOUT_DEFAULT,
                                 &sc->connect_timeout_ms));
    ZM_TRY(zm_api_config_bool(c, Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY,
                              sc->mode == ZM_MODE_CLIENT ? Z_CONFIG_CONNECT_EXIT_ON_FAILURE_CLIENT_DEFAULT
                                                         : Z_CONFIG_CONNECT_EXIT_ON_FAILURE_PEER_DEFAULT,
                              &sc->connect_exit_on_failure));
    ZM_TRY(zm_api_config_timeout(c, Z_CONFIG_LISTEN_TIMEOUT_KEY, Z_CONFIG_LISTEN_TIMEOUT_DEFAULT,
                                 &sc->listen_timeout_ms));
    ZM_TRY(zm_api_config_bool(c, Z_CONFIG_LISTEN_EXIT_ON_FAILURE_KEY, Z_CONFIG_LISTEN_EXIT_ON_FAILURE_DEFAULT,
                              &listen_exit));
    sc->listen_may_fail = !listen_exit;
#endif
    return Z_OK;
}

z_result_t z_open(z_owned_session_t *zs, z_moved_config_t *config, const z_open_options_t *options)
{
    if (zs == NULL) {
        z_config_drop(config);
        return Z_EINVAL;
    }
    zs->_rc.ptr = NULL;
    if (config == NULL) {
        return Z_EINVAL;
    }
    zm_session_config_t sc;
    z_result_t r = session_config(&config->_this._val, &sc);
    zm_api_session_t *b = NULL;
    if (r == Z_OK) {
        /* set here, past the checks, so that their failures share one exit */
#if Z_FEATURE_MULTI_THREAD
        sc.start_tasks = options == NULL || options->auto_start_read_task;
#else
        ZM_UNUSED(options); /* no task to start: start_tasks stays false */
#endif
        b = zm_alloc(sizeof(*b));
        r = b != NULL ? Z_OK : ZM_E_NOMEM;
    }
    zm_session_t *s = NULL;
    if (r == Z_OK) {
        r = zm_session_open(&s, &sc); /* copies the endpoint strings it reads later */
    }
    z_config_drop(config);
    if (r != Z_OK) {
        zm_free(b);
        return r;
    }
    zm_atomic_init(&b->refs, 1u);
#if Z_FEATURE_SESSION_CHECK
    zm_atomic_init(&b->users, 0u);
#endif
    zm_atomic_init(&b->s, s);
    ZM_IF_THREADS(zm_atomic_init(&b->read_task, sc.start_tasks); zm_atomic_init(&b->lease_task, sc.start_tasks);)
    zs->_rc.ptr = b;
#if ZM_UNSTABLE_API && Z_FEATURE_ADMIN_SPACE
    zm_atomic_init(&b->admin_qid, 0u);
    if (options != NULL && options->auto_start_admin_space) {
        r = admin_start(b, s);
    }
#endif
    return r;
}

void z_close_options_default(z_close_options_t *options)
{
    if (options != NULL) {
        options->reserved = 0;
    }
}

z_result_t z_close(z_loaned_session_t *zs, const z_close_options_t *options)
{
    ZM_UNUSED(options);
    zm_api_session_t *b = record_of(zs);
    if (b != NULL) {
        session_close(b, false);
    }
    return Z_OK;
}

bool z_session_is_closed(const z_loaned_session_t *zs)
{
    zm_api_session_t *b = record_of(zs);
    if (!Z_FEATURE_MULTI_THREAD && !ZM_APP_CALLBACKS) { /* no close can begin inside the session */
        return b == NULL || zm_atomic_load(&b->s) == NULL;
    }
    zm_session_t *s;
    if (zm_api_session_enter(b, &s) != Z_OK) {
        return true;
    }
    bool closed = zm_session_is_closed(s); /* a close begun inside the session counts */
    zm_api_session_leave(b);
    return closed;
}

/* ---- what a session knows -------------------------------------------------------------------------- */

/* Undeclares entity id of session b through undeclare, and drops the entity's hold on b. */
z_result_t zm_api_undeclare(zm_api_session_t *b, uint32_t id, z_result_t (*undeclare)(zm_session_t *s, uint32_t id))
{
    zm_session_t *s;
    z_result_t r = zm_api_session_enter(b, &s);
    if (r == Z_OK) {
        r = undeclare(s, id);
        zm_api_session_leave(b);
    } else if (r == Z_ESESSION_CLOSED) {
        r = Z_OK; /* closing the session ended it already */
    }
    zm_api_session_unref(b);
    return r;
}

z_entity_global_id_t zm_api_entity_id(zm_api_session_t *b, uint32_t eid)
{
    z_entity_global_id_t id;
    memset(&id, 0, sizeof(id));
    zm_session_t *s;
    if (zm_api_session_enter(b, &s) == Z_OK) {
        zm_zid_t zid;
        zm_session_zid(s, &zid);
        id.zid = zm_api_id_from_zid(&zid);
        id.eid = eid;
        zm_api_session_leave(b);
    }
    return id;
}

z_id_t z_info_zid(const z_loaned_session_t *zs) { return zm_api_entity_id(record_of(zs), 0).zid; }

#if ZM_UNSTABLE_API
z_entity_global_id_t z_session_id(const z_loaned_session_t *zs) { return zm_api_entity_id(record_of(zs), 0); }
#endif

static void zid_to_closure(const zm_zid_t *zid, void *ctx)
{
    const zm_api_closure_zid_t *c = ctx;
    z_id_t id = zm_api_id_from_zid(zid);
    if (c->call != NULL) {
        c->call(&id, c->context);
    }
}

static z_result_t info_remotes(const z_loaned_session_t *zs, z_moved_closure_zid_t *callback, uint8_t what)
{
    if (callback == NULL) {
        return Z_EINVAL;
    }
    zm_session_t *s;
    z_result_t r = zm_api_session_enter(record_of(zs), &s);
    if (r == Z_OK) {
        zm_session_foreach_remote(s, what, zid_to_closure, &callback->_this._val);
        zm_api_session_leave(record_of(zs));
    }
    z_closure_zid_drop(callback);
    return r;
}

z_result_t z_info_peers_zid(const z_loaned_session_t *zs, z_moved_closure_zid_t *callback)
{
    return info_remotes(zs, callback, ZM_WHAT_PEER);
}

z_result_t z_info_routers_zid(const z_loaned_session_t *zs, z_moved_closure_zid_t *callback)
{
    return info_remotes(zs, callback, ZM_WHAT_ROUTER);
}

z_result_t z_timestamp_new(z_timestamp_t *ts, const z_loaned_session_t *zs)
{
    if (ts == NULL) {
        return Z_EINVAL;
    }
    memset(ts, 0, sizeof(*ts));
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
    zm_timestamp_t t;
    zm_session_new_timestamp(s, &t);
    zm_api_session_leave(record_of(zs));
    ts->valid = true;
    ts->time = t.time;
    ts->id = zm_api_id_from_zid(&t.id);
    return Z_OK;
}

/* ---- declared key expressions ---------------------------------------------------------------------- */

z_result_t z_declare_keyexpr(const z_loaned_session_t *zs, z_owned_keyexpr_t *declared_keyexpr,
                             const z_loaned_keyexpr_t *keyexpr)
{
    if (declared_keyexpr == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(declared_keyexpr);
    if (keyexpr == NULL || keyexpr->key.slice.len == 0) {
        return Z_EINVAL;
    }
    zm_api_keyexpr_t k;
    ZM_TRY(zm_api_keyexpr_clone(&k, keyexpr));
    zm_session_t *s;
    z_result_t r = zm_api_session_enter(record_of(zs), &s);
    uint16_t id = 0;
    if (r == Z_OK) {
        r = zm_session_declare_keyexpr(s, (const char *)k.key.slice.start, k.key.slice.len, &id);
        zm_api_session_leave(record_of(zs));
    }
    if (r != Z_OK) {
        zm_api_keyexpr_clear(&k);
        return r;
    }
    k.id = id;
    k.session = record_of(zs);
    declared_keyexpr->_val = k;
    return Z_OK;
}

z_result_t z_undeclare_keyexpr(const z_loaned_session_t *zs, z_moved_keyexpr_t *keyexpr)
{
    if (keyexpr == NULL) {
        return Z_EINVAL;
    }
    zm_api_keyexpr_t *k = &keyexpr->_this._val;
    z_result_t r;
    if (k->id == 0) {
        r = Z_EINVAL;
    } else if (k->session != record_of(zs)) {
        r = _Z_ERR_KEYEXPR_DECLARED_ON_ANOTHER_SESSION;
    } else {
        zm_session_t *s;
        r = zm_api_session_enter(record_of(zs), &s);
        if (r == Z_OK) {
            r = zm_session_undeclare_keyexpr(s, k->id);
            zm_api_session_leave(record_of(zs));
        }
    }
    z_keyexpr_drop(keyexpr);
    return r;
}

/* ---- driving the session --------------------------------------------------------------------------- */

#if Z_FEATURE_MULTI_THREAD
void zp_task_read_options_default(zp_task_read_options_t *options)
{
    if (options != NULL) {
        options->task_attributes = NULL;
    }
}

void zp_task_lease_options_default(zp_task_lease_options_t *options)
{
    if (options != NULL) {
        options->task_attributes = NULL;
    }
}

/* Runs op on the session and records the task state it leaves when it succeeds. */
static z_result_t task_call(z_loaned_session_t *zs, z_result_t (*op)(zm_session_t *s), bool lease, bool running)
{
    zm_api_session_t *b = record_of(zs);
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(b, &s));
    z_result_t r = op(s);
    if (r == Z_OK) {
        zm_atomic_store(lease ? &b->lease_task : &b->read_task, running);
    }
    zm_api_session_leave(b);
    return r;
}

z_result_t zp_start_read_task(z_loaned_session_t *zs, const zp_task_read_options_t *options)
{
    ZM_UNUSED(options);
    return task_call(zs, zm_session_start_read_task, false, true);
}

z_result_t zp_stop_read_task(z_loaned_session_t *zs) { return task_call(zs, zm_session_stop_read_task, false, false); }

bool zp_read_task_is_running(const z_loaned_session_t *zs)
{
    zm_api_session_t *b = record_of(zs);
    return b != NULL && zm_atomic_load(&b->s) != NULL && zm_atomic_load(&b->read_task);
}

z_result_t zp_start_lease_task(z_loaned_session_t *zs, const zp_task_lease_options_t *options)
{
    ZM_UNUSED(options);
    return task_call(zs, zm_session_start_lease_task, true, true);
}

z_result_t zp_stop_lease_task(z_loaned_session_t *zs) { return task_call(zs, zm_session_stop_lease_task, true, false); }

bool zp_lease_task_is_running(const z_loaned_session_t *zs)
{
    zm_api_session_t *b = record_of(zs);
    return b != NULL && zm_atomic_load(&b->s) != NULL && zm_atomic_load(&b->lease_task);
}
#else
void zp_read_options_default(zp_read_options_t *options)
{
    if (options != NULL) {
        options->single_read = false;
    }
}

z_result_t zp_read(const z_loaned_session_t *zs, const zp_read_options_t *options)
{
    ZM_UNUSED(options);
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
    z_result_t r = zm_session_read(s, Z_CONFIG_SOCKET_TIMEOUT);
    zm_api_session_leave(record_of(zs));
    return r;
}

void zp_send_keep_alive_options_default(zp_send_keep_alive_options_t *options)
{
    if (options != NULL) {
        options->reserved = 0;
    }
}

z_result_t zp_send_keep_alive(const z_loaned_session_t *zs, const zp_send_keep_alive_options_t *options)
{
    ZM_UNUSED(options);
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
    z_result_t r = zm_session_send_keep_alive(s);
    zm_api_session_leave(record_of(zs));
    return r;
}

void zp_send_join_options_default(zp_send_join_options_t *options)
{
    if (options != NULL) {
        options->reserved = 0;
    }
}

z_result_t zp_send_join(const z_loaned_session_t *zs, const zp_send_join_options_t *options)
{
    ZM_UNUSED(options);
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
#if Z_FEATURE_MULTICAST_TRANSPORT
    z_result_t r = zm_session_send_join(s);
#else
    z_result_t r = Z_OK; /* no group to join */
#endif
    zm_api_session_leave(record_of(zs));
    return r;
}
#endif

void zp_spin_once(const z_loaned_session_t *zs)
{
    zm_session_t *s;
    if (zm_api_session_enter(record_of(zs), &s) != Z_OK) {
        return;
    }
    /* A step that fails (a peer lost) has already been dealt with by the session. */
    z_result_t r = zm_session_read(s, 0);
    z_result_t k = zm_session_send_keep_alive(s);
    ZM_UNUSED(r);
    ZM_UNUSED(k);
    zm_api_session_leave(record_of(zs));
}

#if Z_FEATURE_BATCHING
static z_result_t batch_call(const z_loaned_session_t *zs, z_result_t (*op)(zm_session_t *s))
{
    zm_session_t *s;
    ZM_TRY(zm_api_session_enter(record_of(zs), &s));
    z_result_t r = op(s);
    zm_api_session_leave(record_of(zs));
    return r;
}

z_result_t zp_batch_start(const z_loaned_session_t *zs) { return batch_call(zs, zm_session_batch_start); }
z_result_t zp_batch_flush(const z_loaned_session_t *zs) { return batch_call(zs, zm_session_batch_flush); }
z_result_t zp_batch_stop(const z_loaned_session_t *zs) { return batch_call(zs, zm_session_batch_stop); }
#endif

