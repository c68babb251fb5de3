/*
 * The advanced publisher (zmote/api/advanced.h): a plain publisher with the parts zenoh-ext adds
 * to it, each made of public objects: the cache is a ring of samples and a queryable that answers
 * from it, publisher detection a liveliness token, miss detection sequence numbers in the source
 * info and, with heartbeats, a publisher that a thread of its own drives. Caching a sample copies
 * nothing: its payload, encoding and attachment are clones, which share their bytes.
 *
 * Threads: puts and the cache's queryable (on a read task) meet in the ring under parts->lock;
 * replies are cloned out of the ring under it and sent without it, so a slow querier never holds
 * a put. The heartbeat thread sleeps on parts->beat until its period ends or the publisher goes.
 */
#include <string.h>

#include "api/advanced_keys.h"
#include "api/api.h"
#include "util/log.h"

#if ZM_UNSTABLE_API && Z_FEATURE_ADVANCED_PUBLICATION

/* One sample of the cache, as it was put: what a reply to a history query gives back. */
typedef struct {
    bool used; /* holds a sample */
    z_sample_kind_t kind;
    z_timestamp_t timestamp;
    bool has_sn;
    uint32_t sn;
    z_owned_bytes_t payload;
    z_owned_encoding_t encoding;
    z_owned_bytes_t attachment;
} cached_t;

struct zm_api_adv_pub {
    zm_api_session_ref_t session; /* the publisher's reference, for timestamps */
    z_owned_keyexpr_t key;        /* the publisher's: the key of the cache's replies */
    z_entity_global_id_t id;      /* the publisher's: the source of its samples */
    bool sequenced;               /* miss detection: samples carry sequence numbers */
    _Atomic(uint32_t) next_sn;
    z_owned_mutex_t lock; /* the ring; the heartbeat's state (multi-thread builds) */
    cached_t *ring;       /* cap slots, NULL without a cache; the newest sample before next */
    size_t cap;
    size_t next;
    ze_advanced_publisher_cache_options_t reply_qos;
    z_owned_queryable_t cache;
    z_owned_liveliness_token_t token;
    ze_advanced_publisher_heartbeat_mode_t beat_mode;
    uint64_t beat_period_ms;
    z_owned_publisher_t beat_pub;
    z_owned_task_t beat_task;
    bool beat_running; /* beat_task runs */
    z_owned_condvar_t beat;
    bool beat_stop;     /* under lock: the thread ends */
    uint32_t beat_last; /* the next_sn the last sporadic heartbeat saw */
};

/* ---- options ------------------------------------------------------------------------------------ */

void ze_advanced_publisher_cache_options_default(ze_advanced_publisher_cache_options_t *options)
{
    if (options != NULL) {
        options->is_enabled = true;
        options->max_samples = 1;
        options->congestion_control = Z_CONGESTION_CONTROL_DEFAULT;
        options->priority = Z_PRIORITY_DEFAULT;
        options->is_express = false;
    }
}

void ze_advanced_publisher_sample_miss_detection_options_default(
    ze_advanced_publisher_sample_miss_detection_options_t *options)
{
    if (options != NULL) {
        options->is_enabled = true;
        options->heartbeat_mode = ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_DEFAULT;
        options->heartbeat_period_ms = 0;
    }
}

void ze_advanced_publisher_options_default(ze_advanced_publisher_options_t *options)
{
    if (options != NULL) {
        z_publisher_options_default(&options->publisher_options);
        ze_advanced_publisher_cache_options_default(&options->cache);
        options->cache.is_enabled = false;
        ze_advanced_publisher_sample_miss_detection_options_default(&options->sample_miss_detection);
        options->sample_miss_detection.is_enabled = false;
        options->publisher_detection = false;
        options->publisher_detection_metadata = NULL;
    }
}

void ze_advanced_publisher_put_options_default(ze_advanced_publisher_put_options_t *options)
{
    if (options != NULL) {
        z_publisher_put_options_default(&options->put_options);
    }
}

void ze_advanced_publisher_delete_options_default(ze_advanced_publisher_delete_options_t *options)
{
    if (options != NULL) {
        z_publisher_delete_options_default(&options->delete_options);
    }
}

/* ---- the cache ---------------------------------------------------------------------------------- */

static void cached_clear(cached_t *c)
{
    z_bytes_drop(z_bytes_move(&c->payload));
    z_encoding_drop(z_encoding_move(&c->encoding));
    z_bytes_drop(z_bytes_move(&c->attachment));
    c->used = false;
}

/* What a history query asks: sequence numbers within [first, last], timestamps (NTP64) within
 * [since, until], the newest max of them. */
typedef struct {
    bool by_sn;
    uint32_t first;
    uint32_t last;
    size_t max;
    bool by_time;
    uint64_t since;
    uint64_t until;
} wanted_t;

/* A decimal number within 0..UINT32_MAX, the whole of s. */
static bool parse_u32(const char *s, size_t len, uint32_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || (v = v * 10u + (uint64_t)(s[i] - '0')) > UINT32_MAX) {
            return false;
        }
    }
    *out = (uint32_t)v;
    return len > 0;
}

/* The value of name in a selector's parameters (`k=v;k2=v2`): false when absent. */
static bool param(const char *p, size_t len, const char *name, const char **value, size_t *vlen)
{
    size_t nlen = strlen(name);
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && p[end] != ';' && p[end] != '&') {
            end++;
        }
        if (end - i > nlen && memcmp(p + i, name, nlen) == 0 && p[i + nlen] == '=') {
            *value = p + i + nlen + 1;
            *vlen = end - i - nlen - 1;
            return true;
        }
        i = end + 1;
    }
    return false;
}

/* `_sn=a..b` (either end may be empty: open), `_sn=a` (that one), `_max=n`, `_time=[a..b]`: what Rust asks. */
static wanted_t wanted_of(const struct zm_api_adv_pub *a, const z_loaned_query_t *query, size_t cap)
{
    wanted_t w = {false, 0, UINT32_MAX, cap, false, 0, UINT64_MAX};
    z_view_string_t params;
    z_query_parameters(query, &params);
    const char *p = z_string_data(z_loan(params));
    size_t len = z_string_len(z_loan(params));
    const char *v;
    size_t vlen;
    uint32_t n;
    if (param(p, len, "_max", &v, &vlen) && parse_u32(v, vlen, &n) && n < w.max) {
        w.max = n;
    }
    if (param(p, len, "_sn", &v, &vlen)) {
        w.by_sn = true;
        size_t dots = 0;
        while (dots + 1 < vlen && !(v[dots] == '.' && v[dots + 1] == '.')) {
            dots++;
        }
        if (dots + 1 >= vlen) { /* a single number */
            if (parse_u32(v, vlen, &n)) {
                w.first = w.last = n;
            }
        } else {
            if (parse_u32(v, dots, &n)) {
                w.first = n;
            }
            if (parse_u32(v + dots + 2, vlen - dots - 2, &n)) {
                w.last = n;
            }
        }
    }
    z_timestamp_t now;
    if (param(p, len, "_time", &v, &vlen) && z_timestamp_new(&now, &a->session) == Z_OK) {
        w.by_time = zm_adv_time_range(v, vlen, now.time, &w.since, &w.until);
    }
    return w;
}

/* Sends c (taken: its objects move into the reply) to query. */
static void reply_with(const z_loaned_query_t *query, const z_loaned_keyexpr_t *key, const struct zm_api_adv_pub *a,
                       cached_t *c, const ze_advanced_publisher_cache_options_t *qos)
{
    z_source_info_t si = z_source_info_new(&a->id, c->sn);
    z_result_t r;
    if (c->kind == Z_SAMPLE_KIND_PUT) {
        z_query_reply_options_t o;
        z_query_reply_options_default(&o);
        o.encoding = z_internal_encoding_check(&c->encoding) ? z_encoding_move(&c->encoding) : NULL;
        o.timestamp = &c->timestamp;
        o.attachment = z_internal_bytes_check(&c->attachment) ? z_bytes_move(&c->attachment) : NULL;
        o.source_info = c->has_sn ? &si : NULL;
        o.congestion_control = qos->congestion_control;
        o.priority = qos->priority;
        o.is_express = qos->is_express;
        r = z_query_reply(query, key, z_bytes_move(&c->payload), &o);
    } else {
        z_query_reply_del_options_t o;
        z_query_reply_del_options_default(&o);
        o.timestamp = &c->timestamp;
        o.attachment = z_internal_bytes_check(&c->attachment) ? z_bytes_move(&c->attachment) : NULL;
        o.source_info = c->has_sn ? &si : NULL;
        o.congestion_control = qos->congestion_control;
        o.priority = qos->priority;
        o.is_express = qos->is_express;
        r = z_query_reply_del(query, key, &o);
    }
    if (r != Z_OK) {
        ZM_LOG_W("advanced publisher: a cached sample was not replied (%d)", (int)r);
    }
    cached_clear(c);
}

/* The cache's queryable: every wanted sample, oldest first, cloned out of the ring under the lock
 * and replied without it. */
static void cache_answer(z_loaned_query_t *query, void *ctx)
{
    struct zm_api_adv_pub *a = ctx;
    wanted_t w = wanted_of(a, query, a->cap);
    cached_t *out = w.max > 0 ? zm_alloc(w.max * sizeof(*out)) : NULL;
    if (out == NULL) {
        return; /* nothing asked, or no memory for it: no reply, the querier's final says so */
    }
    size_t n = 0;
    ZM_IF_THREADS((void)z_mutex_lock(z_mutex_loan_mut(&a->lock));)
    for (size_t k = 1; k <= a->cap && n < w.max; k++) { /* newest first */
        const cached_t *c = &a->ring[(a->next + a->cap - k) % a->cap];
        if (!c->used || (w.by_sn && (!c->has_sn || c->sn < w.first || c->sn > w.last)) ||
            (w.by_time && (c->timestamp.time < w.since || c->timestamp.time > w.until))) {
            continue;
        }
        cached_t *o = &out[n];
        *o = *c;
        z_internal_bytes_null(&o->payload);
        z_internal_encoding_null(&o->encoding);
        z_internal_bytes_null(&o->attachment);
        if ((z_internal_bytes_check(&c->payload) && z_bytes_clone(&o->payload, z_loan(c->payload)) != Z_OK) ||
            (z_internal_encoding_check(&c->encoding) &&
             z_encoding_clone(&o->encoding, z_loan(c->encoding)) != Z_OK) ||
            (z_internal_bytes_check(&c->attachment) &&
             z_bytes_clone(&o->attachment, z_loan(c->attachment)) != Z_OK)) {
            cached_clear(o);
            continue;
        }
        n++;
    }
    ZM_IF_THREADS((void)z_mutex_unlock(z_mutex_loan_mut(&a->lock));)
    while (n > 0) {
        reply_with(query, z_loan(a->key), a, &out[--n], &a->reply_qos);
    }
    zm_free(out);
}

/*
 * Keeps the sample about to go in the ring's next slot, in place of the oldest: clones, so no
 * byte is copied (a payload that only borrows its bytes is the exception).
 */
static z_result_t cache_keep(struct zm_api_adv_pub *a, z_sample_kind_t kind, const z_loaned_bytes_t *payload,
                             const z_loaned_encoding_t *encoding, const z_loaned_bytes_t *attachment,
                             const z_timestamp_t *ts, const z_source_info_t *si)
{
    cached_t fresh;
    memset(&fresh, 0, sizeof(fresh));
    z_internal_bytes_null(&fresh.payload);
    z_internal_encoding_null(&fresh.encoding);
    z_internal_bytes_null(&fresh.attachment);
    z_result_t r = Z_OK;
    if (payload != NULL) {
        r = z_bytes_clone(&fresh.payload, payload);
    }
    if (r == Z_OK && encoding != NULL) {
        r = z_encoding_clone(&fresh.encoding, encoding);
    }
    if (r == Z_OK && attachment != NULL) {
        r = z_bytes_clone(&fresh.attachment, attachment);
    }
    if (r != Z_OK) {
        cached_clear(&fresh);
        return r;
    }
    fresh.used = true;
    fresh.kind = kind;
    fresh.timestamp = *ts;
    fresh.has_sn = si != NULL;
    fresh.sn = si != NULL ? si->source_sn : 0;
    ZM_IF_THREADS((void)z_mutex_lock(z_mutex_loan_mut(&a->lock));)
    cached_t old = a->ring[a->next];
    a->ring[a->next] = fresh;
    a->next = (a->next + 1) % a->cap;
    ZM_IF_THREADS((void)z_mutex_unlock(z_mutex_loan_mut(&a->lock));)
    if (old.used) {
        cached_clear(&old); /* its objects' last references may go: outside the lock */
    }
    return Z_OK;
}

/* ---- publishing --------------------------------------------------------------------------------- */

/*
 * What every sample of the publisher carries: a timestamp (the caller's, else a new one) and,
 * with miss detection, its source info with the next sequence number.
 */
static z_result_t stamp(struct zm_api_adv_pub *a, z_timestamp_t **timestamp, z_timestamp_t *ts,
                        z_source_info_t **source_info, z_source_info_t *si)
{
    if (*timestamp == NULL) {
        ZM_TRY(z_timestamp_new(ts, &a->session));
        *timestamp = ts;
    }
    if (a->sequenced) {
        *si = z_source_info_new(&a->id, atomic_fetch_add_explicit(&a->next_sn, 1u, memory_order_relaxed));
        *source_info = si;
    }
    return Z_OK;
}

z_result_t ze_advanced_publisher_put(const ze_loaned_advanced_publisher_t *pub, z_moved_bytes_t *payload,
                                     const ze_advanced_publisher_put_options_t *options)
{
    ze_advanced_publisher_put_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        ze_advanced_publisher_put_options_default(&o);
    }
    z_publisher_put_options_t *po = &o.put_options;
    z_result_t r = pub != NULL && pub->parts != NULL && payload != NULL ? Z_OK : Z_EINVAL;
    z_timestamp_t ts;
    z_source_info_t si;
    if (r == Z_OK) {
        r = stamp(pub->parts, &po->timestamp, &ts, &po->source_info, &si);
    }
    if (r == Z_OK && pub->parts->ring != NULL) {
        const z_loaned_encoding_t *enc = po->encoding != NULL ? z_loan(po->encoding->_this)
                                                              : &z_loan(pub->publisher)->encoding;
        r = cache_keep(pub->parts, Z_SAMPLE_KIND_PUT, z_loan(payload->_this), enc,
                       po->attachment != NULL ? z_loan(po->attachment->_this) : NULL, po->timestamp,
                       pub->parts->sequenced ? po->source_info : NULL);
    }
    if (r != Z_OK) {
        z_bytes_drop(payload);
        z_encoding_drop(po->encoding);
        z_bytes_drop(po->attachment);
        return r;
    }
    return z_publisher_put(z_loan(pub->publisher), payload, po);
}

z_result_t ze_advanced_publisher_delete(const ze_loaned_advanced_publisher_t *pub,
                                        const ze_advanced_publisher_delete_options_t *options)
{
    ze_advanced_publisher_delete_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        ze_advanced_publisher_delete_options_default(&o);
    }
    z_publisher_delete_options_t *d = &o.delete_options;
    if (pub == NULL || pub->parts == NULL) {
        return Z_EINVAL;
    }
    z_timestamp_t ts;
    z_source_info_t si;
    ZM_TRY(stamp(pub->parts, &d->timestamp, &ts, &d->source_info, &si));
    if (pub->parts->ring != NULL) {
        ZM_TRY(cache_keep(pub->parts, Z_SAMPLE_KIND_DELETE, NULL, NULL, NULL, d->timestamp,
                          pub->parts->sequenced ? d->source_info : NULL));
    }
    return z_publisher_delete(z_loan(pub->publisher), d);
}

const z_loaned_keyexpr_t *ze_advanced_publisher_keyexpr(const ze_loaned_advanced_publisher_t *pub)
{
    return pub != NULL ? z_publisher_keyexpr(z_loan(pub->publisher)) : NULL;
}

z_entity_global_id_t ze_advanced_publisher_id(const ze_loaned_advanced_publisher_t *pub)
{
    z_entity_global_id_t none;
    memset(&none, 0, sizeof(none));
    return pub != NULL ? z_publisher_id(z_loan(pub->publisher)) : none;
}

#if Z_FEATURE_MATCHING
z_result_t ze_advanced_publisher_get_matching_status(const ze_loaned_advanced_publisher_t *publisher,
                                                     z_matching_status_t *matching_status)
{
    return publisher != NULL ? z_publisher_get_matching_status(z_loan(publisher->publisher), matching_status)
                             : Z_EINVAL;
}

z_result_t ze_advanced_publisher_declare_matching_listener(const ze_loaned_advanced_publisher_t *publisher,
                                                           z_owned_matching_listener_t *matching_listener,
                                                           z_moved_closure_matching_status_t *callback)
{
    if (publisher == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    return z_publisher_declare_matching_listener(z_loan(publisher->publisher), matching_listener, callback);
}

z_result_t ze_advanced_publisher_declare_background_matching_listener(const ze_loaned_advanced_publisher_t *publisher,
                                                                      z_moved_closure_matching_status_t *callback)
{
    if (publisher == NULL) {
        z_closure_matching_status_drop(callback);
        return Z_EINVAL;
    }
    return z_publisher_declare_background_matching_listener(z_loan(publisher->publisher), callback);
}
#endif

/* ---- heartbeats (multi-thread builds: declaring one elsewhere is refused) ----------------------- */

/*
 * The heartbeat thread: every period, the sequence number of the last sample (periodic: once
 * there is one; sporadic: when one came since the last heartbeat), as Rust's z_serialize of a u32.
 */
static void *beat_main(void *arg)
{
    struct zm_api_adv_pub *a = arg;
    z_loaned_mutex_t *lock = z_mutex_loan_mut(&a->lock);
    (void)z_mutex_lock(lock);
    while (!a->beat_stop) {
        z_clock_t until = z_clock_now();
        z_clock_advance_ms(&until, (unsigned long)a->beat_period_ms);
        while (!a->beat_stop && z_condvar_wait_until(z_condvar_loan_mut(&a->beat), lock, &until) == Z_OK) {
        }
        if (a->beat_stop) {
            break;
        }
        uint32_t next = atomic_load_explicit(&a->next_sn, memory_order_relaxed);
        bool send = a->beat_mode == ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_PERIODIC ? next > 0 : next != a->beat_last;
        a->beat_last = next;
        (void)z_mutex_unlock(lock);
        if (send) {
            ze_owned_serializer_t ser;
            z_owned_bytes_t payload;
            if (ze_serializer_empty(&ser) == Z_OK && ze_serializer_serialize_uint32(z_loan_mut(ser), next - 1u) == Z_OK) {
                ze_serializer_finish(z_move(ser), &payload);
                z_result_t r = z_publisher_put(z_loan(a->beat_pub), z_move(payload), NULL);
                if (r != Z_OK) {
                    ZM_LOG_W("advanced publisher: a heartbeat was not sent (%d)", (int)r);
                }
            } else {
                ze_serializer_drop(z_move(ser));
            }
        }
        (void)z_mutex_lock(lock);
    }
    (void)z_mutex_unlock(lock);
    return NULL;
}

/* Stops the heartbeat thread, if it runs, and waits for it. */
static void beat_stop(struct zm_api_adv_pub *a)
{
    if (!a->beat_running) {
        return;
    }
    (void)z_mutex_lock(z_mutex_loan_mut(&a->lock));
    a->beat_stop = true;
    (void)z_condvar_signal(z_condvar_loan_mut(&a->beat));
    (void)z_mutex_unlock(z_mutex_loan_mut(&a->lock));
    (void)z_task_join(z_move(a->beat_task));
    a->beat_running = false;
}

/* The heartbeat publisher on key, and its thread. */
static z_result_t beat_start(struct zm_api_adv_pub *a, const z_loaned_session_t *zs, const z_loaned_keyexpr_t *key,
                             const ze_advanced_publisher_sample_miss_detection_options_t *o)
{
    a->beat_mode = o->heartbeat_mode;
    a->beat_period_ms = o->heartbeat_period_ms;
    z_publisher_options_t po;
    z_publisher_options_default(&po);
    if (o->heartbeat_mode == ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_SPORADIC) {
        po.congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    }
    ZM_TRY(z_declare_publisher(zs, &a->beat_pub, key, &po));
    ZM_TRY(z_condvar_init(&a->beat));
    ZM_TRY(z_task_init(&a->beat_task, NULL, beat_main, a));
    a->beat_running = true;
    return Z_OK;
}

/* ---- declaration -------------------------------------------------------------------------------- */

/* Frees what a's parts hold, in the order that stops their use: heartbeat, queryable, token. */
static void parts_free(struct zm_api_adv_pub *a)
{
    beat_stop(a);
    z_publisher_drop(z_move(a->beat_pub));
    z_condvar_drop(z_move(a->beat));
    z_queryable_drop(z_move(a->cache)); /* its callback runs no more */
    z_liveliness_token_drop(z_move(a->token));
    z_keyexpr_drop(z_move(a->key));
    for (size_t i = 0; a->ring != NULL && i < a->cap; i++) {
        if (a->ring[i].used) {
            cached_clear(&a->ring[i]);
        }
    }
    zm_free(a->ring);
    ZM_IF_THREADS(z_mutex_drop(z_move(a->lock));)
    zm_free(a);
}

/* Appends len bytes of s to buf (cap bytes, *n used, a NUL kept after): false when they do not fit. */
static bool append(char *buf, size_t cap, size_t *n, const char *s, size_t len)
{
    if (len >= cap - *n) {
        return false;
    }
    memcpy(buf + *n, s, len);
    *n += len;
    buf[*n] = '\0';
    return true;
}

/* `@adv/pub/<zid>/<eid or uhlc>/<metadata or _>`: the suffix of the publisher's other keys. */
static z_result_t suffix_of(char *buf, size_t cap, const z_entity_global_id_t *id, bool sequenced,
                            const z_loaned_keyexpr_t *metadata, z_owned_keyexpr_t *suffix)
{
    char zid[ZM_ADV_ZID_CHUNK_MAX];
    size_t zid_len = zm_adv_zid_chunk(&id->zid, zid); /* as Rust prints it, which Rust's subscribers read */
    char eid[11]; /* decimal, most significant digit first */
    size_t digits = 0;
    for (uint32_t e = id->eid, div = 1000000000u; div > 0; div /= 10u) {
        if (e / div > 0 || digits > 0 || div == 1) {
            eid[digits++] = (char)('0' + (e / div) % 10u);
        }
    }
    z_view_string_t meta;
    if (metadata != NULL) {
        z_keyexpr_as_view_string(metadata, &meta);
    }
    size_t n = 0;
    bool fits = append(buf, cap, &n, "@adv/pub/", 9) &&
                append(buf, cap, &n, zid, zid_len) &&
                append(buf, cap, &n, "/", 1) &&
                (sequenced ? append(buf, cap, &n, eid, digits) : append(buf, cap, &n, "uhlc", 4)) &&
                append(buf, cap, &n, "/", 1) &&
                (metadata != NULL ? append(buf, cap, &n, z_string_data(z_loan(meta)), z_string_len(z_loan(meta)))
                                  : append(buf, cap, &n, "_", 1));
    return fits ? z_keyexpr_from_str(suffix, buf) : Z_EINVAL;
}

/* The parts the options ask for, on the publisher's key and id (pub->parts, even when one fails). */
static z_result_t parts_make(zm_api_advanced_publisher_t *pub, const z_loaned_session_t *zs,
                             const z_loaned_keyexpr_t *keyexpr, const ze_advanced_publisher_options_t *o)
{
    struct zm_api_adv_pub *a = zm_calloc(sizeof(*a));
    if (a == NULL) {
        return ZM_E_NOMEM;
    }
    z_internal_keyexpr_null(&a->key);
    z_internal_queryable_null(&a->cache);
    z_internal_liveliness_token_null(&a->token);
    z_internal_publisher_null(&a->beat_pub);
    z_internal_task_null(&a->beat_task);
    z_internal_condvar_null(&a->beat);
    ZM_IF_THREADS(z_internal_mutex_null(&a->lock);)
    pub->parts = a;
    a->session = *zs;
    a->id = z_publisher_id(z_loan(pub->publisher));
    a->sequenced = o->sample_miss_detection.is_enabled;
    atomic_init(&a->next_sn, 0u);
    z_result_t r = z_keyexpr_clone(&a->key, keyexpr);
    ZM_IF_THREADS(if (r == Z_OK) { r = z_mutex_init(&a->lock); })
    /* the suffix's text: its fixed parts, a zid of 32 hex digits, an eid of 10 digits, the metadata */
    z_view_string_t meta;
    z_view_string_empty(&meta);
    if (o->publisher_detection_metadata != NULL) {
        z_keyexpr_as_view_string(o->publisher_detection_metadata, &meta);
    }
    size_t cap = 64u + z_string_len(z_loan(meta));
    char *buf = r == Z_OK ? zm_alloc(cap) : NULL;
    z_owned_keyexpr_t suffix, key;
    z_internal_keyexpr_null(&key);
    if (r == Z_OK) {
        r = buf != NULL ? suffix_of(buf, cap, &a->id, a->sequenced, o->publisher_detection_metadata, &suffix) : ZM_E_NOMEM;
        if (r == Z_OK) {
            r = z_keyexpr_join(&key, keyexpr, z_loan(suffix));
            z_keyexpr_drop(z_move(suffix));
        }
    }
    zm_free(buf);
    if (r == Z_OK && o->cache.is_enabled) {
        a->cap = o->cache.max_samples;
        a->reply_qos = o->cache;
        a->ring = zm_calloc(a->cap * sizeof(*a->ring));
        r = a->ring != NULL ? Z_OK : ZM_E_NOMEM;
        z_owned_closure_query_t answer;
        if (r == Z_OK) {
            z_closure(&answer, cache_answer, NULL, a);
            r = z_declare_queryable(zs, &a->cache, z_loan(key), z_move(answer), NULL);
        }
    }
    if (r == Z_OK && o->publisher_detection) {
        r = z_liveliness_declare_token(zs, &a->token, z_loan(key), NULL);
    }
    if (r == Z_OK && a->sequenced && o->sample_miss_detection.heartbeat_mode != ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_NONE) {
        r = beat_start(a, zs, z_loan(key), &o->sample_miss_detection);
    }
    z_keyexpr_drop(z_move(key));
    return r;
}

z_result_t ze_declare_advanced_publisher(const z_loaned_session_t *zs, ze_owned_advanced_publisher_t *pub,
                                         const z_loaned_keyexpr_t *keyexpr,
                                         const ze_advanced_publisher_options_t *options)
{
    ze_advanced_publisher_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        ze_advanced_publisher_options_default(&o);
    }
    bool beats = o.sample_miss_detection.is_enabled &&
                 o.sample_miss_detection.heartbeat_mode != ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_NONE;
    if (pub != NULL) {
        ze_internal_advanced_publisher_null(pub);
    }
    if (zs == NULL || pub == NULL || (o.cache.is_enabled && o.cache.max_samples == 0) ||
        (beats && o.sample_miss_detection.heartbeat_period_ms == 0)) {
        z_encoding_drop(o.publisher_options.encoding);
        return Z_EINVAL;
    }
    if (beats && !Z_FEATURE_MULTI_THREAD) {
        z_encoding_drop(o.publisher_options.encoding);
        return ZM_E_UNSUPPORTED; /* a heartbeat is a thread of its own */
    }
    ZM_TRY(z_declare_publisher(zs, &pub->_val.publisher, keyexpr, &o.publisher_options));
    z_result_t r = parts_make(&pub->_val, zs, keyexpr, &o);
    if (r != Z_OK) {
        (void)ze_undeclare_advanced_publisher(ze_advanced_publisher_move(pub));
    }
    return r;
}

z_result_t ze_undeclare_advanced_publisher(ze_moved_advanced_publisher_t *pub)
{
    if (pub == NULL || !ze_internal_advanced_publisher_check(&pub->_this)) {
        return Z_ENULL;
    }
    zm_api_advanced_publisher_t *p = &pub->_this._val;
    if (p->parts != NULL) {
        parts_free(p->parts); /* before the publisher: they use its session reference */
        p->parts = NULL;
    }
    return z_undeclare_publisher(z_move(p->publisher));
}

/* ---- the owned type ----------------------------------------------------------------------------- */

void ze_internal_advanced_publisher_null(ze_owned_advanced_publisher_t *obj)
{
    if (obj != NULL) {
        z_internal_publisher_null(&obj->_val.publisher);
        obj->_val.parts = NULL;
    }
}

bool ze_internal_advanced_publisher_check(const ze_owned_advanced_publisher_t *obj)
{
    return obj != NULL && z_internal_publisher_check(&obj->_val.publisher);
}

void ze_advanced_publisher_take(ze_owned_advanced_publisher_t *obj, ze_moved_advanced_publisher_t *src)
{
    if (obj == NULL) {
        return;
    }
    if (src == NULL) {
        ze_internal_advanced_publisher_null(obj);
        return;
    }
    *obj = src->_this;
    ze_internal_advanced_publisher_null(&src->_this);
}

void ze_advanced_publisher_drop(ze_moved_advanced_publisher_t *obj) { (void)ze_undeclare_advanced_publisher(obj); }

#endif /* ZM_UNSTABLE_API && Z_FEATURE_ADVANCED_PUBLICATION */
