/*
 * The advanced subscriber (zmote/api/advanced.h), zenoh-ext's behaviour made of public objects: a
 * subscriber whose samples go through a table of the publishers it follows (their last delivered
 * sequence number or timestamp, the queries under way for them), a bounded set of samples held
 * back until the ones before them come (history, recovery), the gets that ask the publishers'
 * caches, a liveliness subscriber that finds late publishers, a heartbeat subscriber, and a
 * thread for periodic queries. The order logic (adv_seen and the flushes) is Rust's, state for state.
 *
 * Threads: samples, replies, tokens and heartbeats arrive on the session's read tasks, the end
 * of a get on its worker; they meet in the state under st->lock, and the program's callbacks run
 * with it held (Rust's order guarantee needs it). Gets are sent without it: a get may answer
 * within the call. The state lives while anything refers to it (refs): the handle, each part's
 * closure, each get under way, each miss listener.
 */
#include <string.h>

#include "api/advanced_keys.h"
#include "api/api.h"
#include "util/log.h"

#if ZM_UNSTABLE_API && Z_FEATURE_ADVANCED_SUBSCRIPTION

#include "api/advanced_seq.h"

#if Z_FEATURE_MULTI_THREAD
#define LOCK(st) ((void)z_mutex_lock(z_mutex_loan_mut(&(st)->lock)))
#define UNLOCK(st) ((void)z_mutex_unlock(z_mutex_loan_mut(&(st)->lock)))
#else
#define LOCK(st) ((void)(st))
#define UNLOCK(st) ((void)(st))
#endif

/* A registered miss listener. */
typedef struct listener {
    struct listener *next;
    size_t id;
    ze_owned_closure_miss_t closure;
} listener_t;

struct zm_api_adv_sub {
    ZM_ATOMIC(unsigned) refs;
    zm_api_session_ref_t session; /* borrowed: the subscriber's counted reference keeps it */
    z_owned_keyexpr_t key;
    uint64_t timeout_ms;
    size_t hist_max;     /* `_max` of history queries (0: none) */
    uint64_t hist_age_ms; /* `_time` of history queries (0: none) */
    z_owned_subscriber_t sub;
    z_owned_subscriber_t live_sub;
    z_owned_subscriber_t beat_sub;
    z_owned_liveliness_token_t token;
    ZM_IF_THREADS(
        z_owned_mutex_t lock;
        z_owned_task_t task; /* periodic queries */
        bool task_running;
        z_owned_condvar_t wake;
        bool stop; /* under lock: the thread ends */
    )
    uint64_t period_ms;
    /* under lock: */
    z_owned_closure_sample_t callback; /* null once the subscriber is undeclared */
    listener_t *listeners;
    size_t next_id;
    zm_adv_seq_t seq;
};

/* ---- the state ------------------------------------------------------------------------------------ */

static struct zm_api_adv_sub *state_ref(struct zm_api_adv_sub *st)
{
    zm_atomic_inc_relaxed(&st->refs);
    return st;
}

static void state_unref(struct zm_api_adv_sub *st)
{
    if (zm_atomic_dec_acq_rel(&st->refs) != 1u) {
        return;
    }
    zm_adv_seq_clear(&st->seq);
    z_keyexpr_drop(z_move(st->key));
    z_closure_sample_drop(z_move(st->callback));
    while (st->listeners != NULL) {
        listener_t *l = st->listeners;
        st->listeners = l->next;
        ze_closure_miss_drop(ze_closure_miss_move(&l->closure));
        zm_free(l);
    }
    ZM_IF_THREADS(z_condvar_drop(z_move(st->wake)); z_mutex_drop(z_move(st->lock));)
    zm_free(st);
}

/* The sequence tracker's outlets (lock held): the program's callback and the miss listeners. */
static void deliver(void *ctx, z_loaned_sample_t *sample)
{
    struct zm_api_adv_sub *st = ctx;
    z_closure_sample_call(z_closure_sample_loan(&st->callback), sample);
}

static void missed(void *ctx, const z_entity_global_id_t *source, uint32_t nb)
{
    struct zm_api_adv_sub *st = ctx;
    ze_miss_t miss = {*source, nb};
    for (listener_t *l = st->listeners; l != NULL; l = l->next) {
        ze_closure_miss_call(ze_closure_miss_loan(&l->closure), &miss);
    }
}

/* Whether the subscriber still delivers (lock held). */
static bool live(const struct zm_api_adv_sub *st) { return z_internal_closure_sample_check(&st->callback); }

/* ---- gets ----------------------------------------------------------------------------------------- */

/* A get under way: what its end settles. */
typedef struct {
    struct zm_api_adv_sub *st; /* a reference */
    zm_adv_query_t kind;
    z_entity_global_id_t id;
} get_t;

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    get_t *g = ctx;
    const z_loaned_sample_t *s = z_reply_ok(reply);
    if (s == NULL || !z_keyexpr_intersects(z_loan(g->st->key), z_sample_keyexpr(s))) {
        return;
    }
    LOCK(g->st);
    if (live(g->st)) {
        (void)zm_adv_seq_sample(&g->st->seq, (z_loaned_sample_t *)s, NULL);
    }
    UNLOCK(g->st);
}

static void on_get_end(void *ctx)
{
    get_t *g = ctx;
    LOCK(g->st);
    zm_adv_seq_query_end(&g->st->seq, g->kind, &g->id, live(g->st));
    UNLOCK(g->st);
    state_unref(g->st);
    zm_free(g);
}

/*
 * Sends a get on key (key + suffix) with params, whose end settles kind for id; the count of gets
 * under way it settles was raised by the caller, and the get's end lowers it, even when sending fails.
 */
static void ask(struct zm_api_adv_sub *st, const z_loaned_keyexpr_t *key, const char *suffix, const char *params,
                zm_adv_query_t kind, const z_entity_global_id_t *id)
{
    get_t *g = zm_alloc(sizeof(*g));
    z_owned_keyexpr_t joined;
    z_internal_keyexpr_null(&joined);
    z_result_t r = g != NULL ? Z_OK : ZM_E_NOMEM;
    if (r == Z_OK && suffix != NULL) {
        r = z_keyexpr_concat(&joined, key, suffix, strlen(suffix));
        key = z_loan(joined);
    }
    if (r != Z_OK) {
        ZM_LOG_W("advanced subscriber: a query was not sent (%d)", (int)r);
        if (g != NULL) {
            zm_free(g);
        }
        LOCK(st);
        zm_adv_seq_query_end(&st->seq, kind, id, live(st));
        UNLOCK(st);
        return;
    }
    g->st = state_ref(st);
    g->kind = kind;
    g->id = *id;
    z_owned_closure_reply_t cb;
    z_closure_reply(&cb, on_reply, on_get_end, g);
    z_get_options_t o;
    z_get_options_default(&o);
    o.target = Z_QUERY_TARGET_ALL;
    o.consolidation.mode = Z_CONSOLIDATION_MODE_NONE;
    o.accept_replies = Z_REPLY_KEYEXPR_ANY;
    o.timeout_ms = st->timeout_ms;
    r = z_get(&st->session, key, params, z_move(cb), &o); /* its end runs even on failure */
    if (r != Z_OK) {
        ZM_LOG_W("advanced subscriber: a query was not sent (%d)", (int)r);
    }
    z_keyexpr_drop(z_move(joined));
}

/* Appends v in decimal to buf at *n (room checked by the callers' buffer sizes). */
static void put_u64(char *buf, size_t *n, uint64_t v)
{
    char digits[20];
    size_t d = 0;
    do {
        digits[d++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v > 0);
    while (d > 0) {
        buf[(*n)++] = digits[--d];
    }
    buf[*n] = '\0';
}

static void put_str(char *buf, size_t *n, const char *s)
{
    size_t len = strlen(s);
    memcpy(buf + *n, s, len + 1);
    *n += len;
}

/* Room for the parameters of any query: `_max=<20 digits>;_time=[now(-<20>.<3>s)..]` or `_sn=<10>..<10>`. */
#define PARAMS_MAX 80

/* The parameters of a history query, as Rust writes them: `_max=n;_time=[now(-<seconds>s)..]`. */
static void history_params(const struct zm_api_adv_sub *st, char *buf)
{
    size_t n = 0;
    buf[0] = '\0';
    if (st->hist_max > 0) {
        put_str(buf, &n, "_max=");
        put_u64(buf, &n, st->hist_max);
    }
    if (st->hist_age_ms > 0) {
        put_str(buf, &n, n > 0 ? ";_time=[now(-" : "_time=[now(-");
        put_u64(buf, &n, st->hist_age_ms / 1000u);
        uint64_t ms = st->hist_age_ms % 1000u;
        if (ms > 0) { /* as Rust prints an f64: no trailing zero */
            char frac[4] = {(char)('0' + ms / 100u), (char)('0' + ms / 10u % 10u), (char)('0' + ms % 10u), '\0'};
            for (size_t i = 2; i > 0 && frac[i] == '0'; i--) {
                frac[i] = '\0';
            }
            put_str(buf, &n, ".");
            put_str(buf, &n, frac);
        }
        put_str(buf, &n, "s)..]");
    }
}

/* `_sn=a..b` with either end absent, as Rust writes it. */
static void sn_params(char *buf, bool has_first, uint32_t first, bool has_last, uint32_t last)
{
    size_t n = 0;
    put_str(buf, &n, "_sn=");
    if (has_first) {
        put_u64(buf, &n, first);
    }
    put_str(buf, &n, "..");
    if (has_last) {
        put_u64(buf, &n, last);
    }
}

/* Room for `/@adv/ * /<zid>/<eid>/ **`. */
#define SUFFIX_MAX (8 + ZM_ADV_ZID_CHUNK_MAX + 1 + 10 + 4)

/* Asks the cache of publisher id for its samples after the last delivered one (`_sn=a..`). */
static void ask_missing(struct zm_api_adv_sub *st, const zm_adv_ask_t *a)
{
    char suffix[SUFFIX_MAX];
    size_t n = 0;
    put_str(suffix, &n, "/@adv/*/");
    n += zm_adv_zid_chunk(&a->id.zid, suffix + n);
    suffix[n++] = '/';
    put_u64(suffix, &n, a->id.eid);
    put_str(suffix, &n, "/**");
    char params[PARAMS_MAX];
    sn_params(params, a->has_first, a->first, false, 0);
    ask(st, z_loan(st->key), suffix, params, ZM_ADV_QUERY_SEQUENCED, &a->id);
}

/* ---- the parts' callbacks ------------------------------------------------------------------------- */

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    struct zm_api_adv_sub *st = ctx;
    zm_adv_ask_t a;
    LOCK(st);
    bool asks = live(st) && zm_adv_seq_sample(&st->seq, sample, &a);
    UNLOCK(st);
    if (asks) {
        ask_missing(st, &a);
    }
}

/* The subscriber is gone: its callback and miss listeners are dropped (outside the lock). */
static void on_sub_drop(void *ctx)
{
    struct zm_api_adv_sub *st = ctx;
    z_owned_closure_sample_t cb;
    LOCK(st);
    z_closure_sample_take(&cb, z_move(st->callback));
    listener_t *ls = st->listeners;
    st->listeners = NULL;
    UNLOCK(st);
    z_closure_sample_drop(z_move(cb));
    while (ls != NULL) {
        listener_t *l = ls;
        ls = l->next;
        ze_closure_miss_drop(ze_closure_miss_move(&l->closure));
        zm_free(l);
    }
    state_unref(st);
}

static void on_part_drop(void *ctx) { state_unref(ctx); }

/* The chunks of key's `@adv/<entity>/<zid>/<eid>/...` part: false when it has none. */
static bool adv_chunks(const z_loaned_keyexpr_t *key, z_id_t *zid, const char **eid, size_t *eid_len)
{
    z_view_string_t v;
    z_keyexpr_as_view_string(key, &v);
    return zm_adv_key_chunks(z_string_data(z_loan(v)), z_string_len(z_loan(v)), zid, eid, eid_len);
}

/* A decimal u32, the whole of s. */
static bool eid_of(const char *s, size_t len, uint32_t *eid)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || (v = v * 10u + (uint64_t)(s[i] - '0')) > UINT32_MAX) {
            return false;
        }
    }
    *eid = (uint32_t)v;
    return len > 0;
}

/* A publisher's liveliness token: its history is asked for when it appears (late publishers). */
static void on_token(z_loaned_sample_t *sample, void *ctx)
{
    struct zm_api_adv_sub *st = ctx;
    const z_loaned_keyexpr_t *key = z_sample_keyexpr(sample);
    z_entity_global_id_t id;
    memset(&id, 0, sizeof(id));
    const char *eid;
    size_t eid_len;
    if (!adv_chunks(key, &id.zid, &eid, &eid_len)) {
        ZM_LOG_W("advanced subscriber: a malformed liveliness token");
        return;
    }
    bool uhlc = eid_len == 4 && memcmp(eid, "uhlc", 4) == 0;
    bool known = uhlc || eid_of(eid, eid_len, &id.eid);
    bool put = z_sample_kind(sample) == Z_SAMPLE_KIND_PUT;
    zm_adv_query_t kind = !known ? ZM_ADV_QUERY_INITIAL : uhlc ? ZM_ADV_QUERY_TIMESTAMPED : ZM_ADV_QUERY_SEQUENCED;
    LOCK(st);
    bool asks = live(st) && zm_adv_seq_publisher(&st->seq, kind, &id, put);
    UNLOCK(st);
    if (asks) {
        char params[PARAMS_MAX];
        history_params(st, params);
        ask(st, key, NULL, params, kind, &id);
    }
}

/* A heartbeat: the publisher's last sequence number, and the query of what came before it if missed. */
static void on_beat(z_loaned_sample_t *sample, void *ctx)
{
    struct zm_api_adv_sub *st = ctx;
    z_entity_global_id_t id;
    memset(&id, 0, sizeof(id));
    const char *eid;
    size_t eid_len;
    uint32_t sn;
    if (z_sample_kind(sample) != Z_SAMPLE_KIND_PUT || !adv_chunks(z_sample_keyexpr(sample), &id.zid, &eid, &eid_len) ||
        !eid_of(eid, eid_len, &id.eid) || ze_deserialize_uint32(z_sample_payload(sample), &sn) != Z_OK) {
        return;
    }
    zm_adv_ask_t a;
    LOCK(st);
    bool asks = live(st) && zm_adv_seq_heartbeat(&st->seq, &id, sn, &a);
    UNLOCK(st);
    if (asks) {
        char params[PARAMS_MAX];
        sn_params(params, a.has_first, a.first, true, sn);
        ask(st, z_sample_keyexpr(sample), NULL, params, ZM_ADV_QUERY_SEQUENCED, &id);
    }
}

/* ---- periodic queries (multi-thread builds: declaring them elsewhere is refused) --------------------- */

#if Z_FEATURE_MULTI_THREAD
static void *periodic_main(void *arg)
{
    struct zm_api_adv_sub *st = arg;
    LOCK(st);
    while (!st->stop) {
        z_clock_t until = z_clock_now();
        z_clock_advance_ms(&until, (unsigned long)st->period_ms);
        while (!st->stop &&
               z_condvar_wait_until(z_condvar_loan_mut(&st->wake), z_mutex_loan_mut(&st->lock), &until) == Z_OK) {
        }
        zm_adv_ask_t asks[ZM_ADV_SUB_PUBLISHERS];
        size_t n = st->stop || !live(st) ? 0 : zm_adv_seq_periodic(&st->seq, asks);
        UNLOCK(st);
        for (size_t i = 0; i < n; i++) {
            ask_missing(st, &asks[i]);
        }
        LOCK(st);
    }
    UNLOCK(st);
    return NULL;
}

static void periodic_stop(struct zm_api_adv_sub *st)
{
    if (!st->task_running) {
        return;
    }
    LOCK(st);
    st->stop = true;
    (void)z_condvar_signal(z_condvar_loan_mut(&st->wake));
    UNLOCK(st);
    (void)z_task_join(z_move(st->task));
    st->task_running = false;
}
#endif

/* ---- options ------------------------------------------------------------------------------------- */

void ze_advanced_subscriber_history_options_default(ze_advanced_subscriber_history_options_t *options)
{
    if (options != NULL) {
        options->is_enabled = true;
        options->detect_late_publishers = false;
        options->max_samples = 0;
        options->max_age_ms = 0;
    }
}

void ze_advanced_subscriber_last_sample_miss_detection_options_default(
    ze_advanced_subscriber_last_sample_miss_detection_options_t *options)
{
    if (options != NULL) {
        options->is_enabled = true;
        options->periodic_queries_period_ms = 0;
    }
}

void ze_advanced_subscriber_recovery_options_default(ze_advanced_subscriber_recovery_options_t *options)
{
    if (options != NULL) {
        options->is_enabled = true;
        ze_advanced_subscriber_last_sample_miss_detection_options_default(&options->last_sample_miss_detection);
        options->last_sample_miss_detection.is_enabled = false;
    }
}

void ze_advanced_subscriber_options_default(ze_advanced_subscriber_options_t *options)
{
    if (options != NULL) {
        z_subscriber_options_default(&options->subscriber_options);
        ze_advanced_subscriber_history_options_default(&options->history);
        options->history.is_enabled = false;
        ze_advanced_subscriber_recovery_options_default(&options->recovery);
        options->recovery.is_enabled = false;
        options->query_timeout_ms = 0;
        options->subscriber_detection = false;
        options->subscriber_detection_metadata = NULL;
    }
}

/* ---- declaration --------------------------------------------------------------------------------- */

/* Undeclares st's parts (those declared) and lets go of the handle's reference. */
static z_result_t parts_undeclare(struct zm_api_adv_sub *st)
{
    ZM_IF_THREADS(periodic_stop(st);)
    z_liveliness_token_drop(z_move(st->token));
    z_subscriber_drop(z_move(st->beat_sub));
    z_subscriber_drop(z_move(st->live_sub));
    z_result_t r = z_internal_subscriber_check(&st->sub) ? z_undeclare_subscriber(z_move(st->sub)) : Z_OK;
    state_unref(st);
    return r;
}

/* A subscriber on key whose closure (call, drop on_part_drop unless main) holds a reference to st. */
static z_result_t part_subscribe(struct zm_api_adv_sub *st, const z_loaned_session_t *zs, z_owned_subscriber_t *out,
                                 const z_loaned_keyexpr_t *key, bool liveliness, bool main,
                                 z_closure_sample_callback_t call, const z_subscriber_options_t *so, bool background)
{
    z_owned_closure_sample_t cb;
    z_closure_sample(&cb, call, main ? on_sub_drop : on_part_drop, state_ref(st));
    if (liveliness) {
        z_liveliness_subscriber_options_t lo;
        z_liveliness_subscriber_options_default(&lo);
        lo.history = true;
        return background ? z_liveliness_declare_background_subscriber(zs, key, z_move(cb), &lo)
                          : z_liveliness_declare_subscriber(zs, out, key, z_move(cb), &lo);
    }
    z_subscriber_options_t o;
    if (so != NULL) {
        o = *so;
    } else {
        z_subscriber_options_default(&o);
    }
    return background ? z_declare_background_subscriber(zs, key, z_move(cb), &o)
                      : z_declare_subscriber(zs, out, key, z_move(cb), &o);
}

/* `K/@adv/sub/<zid>/<eid>/<metadata or _>`: the key of the subscriber's liveliness token, as Rust's. */
static z_result_t token_declare(struct zm_api_adv_sub *st, const z_loaned_session_t *zs, const z_loaned_keyexpr_t *key,
                                const z_loaned_keyexpr_t *meta)
{
    z_entity_global_id_t id = z_subscriber_id(z_loan(st->sub));
    char suffix[SUFFIX_MAX];
    size_t n = 0;
    put_str(suffix, &n, "/@adv/sub/");
    n += zm_adv_zid_chunk(&id.zid, suffix + n);
    suffix[n++] = '/';
    put_u64(suffix, &n, id.eid);
    put_str(suffix, &n, meta != NULL ? "/" : "/_");
    z_owned_keyexpr_t with, full;
    z_internal_keyexpr_null(&full);
    ZM_TRY(z_keyexpr_concat(&with, key, suffix, n));
    z_result_t r = Z_OK;
    if (meta != NULL) {
        z_view_string_t mv;
        z_keyexpr_as_view_string(meta, &mv);
        r = z_keyexpr_concat(&full, z_loan(with), z_string_data(z_loan(mv)), z_string_len(z_loan(mv)));
    }
    if (r == Z_OK) {
        r = z_liveliness_declare_token(zs, &st->token, meta != NULL ? z_loan(full) : z_loan(with), NULL);
    }
    z_keyexpr_drop(z_move(full));
    z_keyexpr_drop(z_move(with));
    return r;
}

static z_result_t declare(const z_loaned_session_t *zs, ze_owned_advanced_subscriber_t *out,
                          const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                          const ze_advanced_subscriber_options_t *options)
{
    ze_advanced_subscriber_options_t o;
    if (options != NULL) {
        o = *options;
    } else {
        ze_advanced_subscriber_options_default(&o);
    }
    bool background = out == NULL;
    bool recovery = o.recovery.is_enabled;
    bool last_miss = recovery && o.recovery.last_sample_miss_detection.is_enabled;
    uint64_t period = last_miss ? o.recovery.last_sample_miss_detection.periodic_queries_period_ms : 0;
    if (zs == NULL || keyexpr == NULL || callback == NULL || !z_internal_closure_sample_check(&callback->_this)) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
    if ((period > 0 && (!Z_FEATURE_MULTI_THREAD || background)) || (background && o.subscriber_detection)) {
        z_closure_sample_drop(callback);
        return ZM_E_UNSUPPORTED; /* a thread or a token of its own needs a handle to end it */
    }
    struct zm_api_adv_sub *st = zm_calloc(sizeof(*st));
    if (st == NULL) {
        z_closure_sample_drop(callback);
        return ZM_E_NOMEM;
    }
    zm_atomic_init(&st->refs, 1u);
    st->session = *zs;
    z_internal_keyexpr_null(&st->key);
    z_internal_subscriber_null(&st->sub);
    z_internal_subscriber_null(&st->live_sub);
    z_internal_subscriber_null(&st->beat_sub);
    z_internal_liveliness_token_null(&st->token);
    z_closure_sample_take(&st->callback, callback);
    st->timeout_ms = o.query_timeout_ms > 0 ? o.query_timeout_ms : Z_GET_TIMEOUT_DEFAULT;
    st->hist_max = o.history.max_samples;
    st->hist_age_ms = o.history.max_age_ms;
    st->period_ms = period;
    zm_adv_seq_init(&st->seq, deliver, missed, st, recovery, o.history.is_enabled,
                    o.history.max_samples > 0 ? o.history.max_samples : SIZE_MAX);
    z_result_t r = z_keyexpr_clone(&st->key, keyexpr);
    ZM_IF_THREADS(
        z_internal_mutex_null(&st->lock);
        z_internal_condvar_null(&st->wake);
        z_internal_task_null(&st->task);
        if (r == Z_OK) {
            r = z_mutex_init(&st->lock);
        }
        if (r == Z_OK) {
            r = z_condvar_init(&st->wake);
        }
    )
    if (r == Z_OK) {
        r = part_subscribe(st, zs, &st->sub, keyexpr, false, true, on_sample, &o.subscriber_options, background);
    }
    if (r == Z_OK && o.history.is_enabled) { /* every publisher's history, once */
        char params[PARAMS_MAX];
        history_params(st, params);
        z_entity_global_id_t none;
        memset(&none, 0, sizeof(none));
        ask(st, keyexpr, "/@adv/**", params, ZM_ADV_QUERY_INITIAL, &none);
    }
    z_owned_keyexpr_t pubs; /* the keys under `K/@adv/pub`: the publishers' tokens and heartbeats */
    z_internal_keyexpr_null(&pubs);
    bool tokens = o.history.is_enabled && o.history.detect_late_publishers;
    if (r == Z_OK && (tokens || (last_miss && period == 0))) {
        r = z_keyexpr_concat(&pubs, keyexpr, "/@adv/pub/**", 12);
    }
    if (r == Z_OK && tokens) {
        r = part_subscribe(st, zs, &st->live_sub, z_loan(pubs), true, false, on_token, NULL, background);
    }
    if (r == Z_OK && last_miss && period == 0) {
        r = part_subscribe(st, zs, &st->beat_sub, z_loan(pubs), false, false, on_beat, NULL, background);
    }
    z_keyexpr_drop(z_move(pubs));
    ZM_IF_THREADS(
        if (r == Z_OK && period > 0) {
            r = z_task_init(&st->task, NULL, periodic_main, st);
            st->task_running = r == Z_OK;
        }
    )
    if (r == Z_OK && o.subscriber_detection) {
        r = token_declare(st, zs, keyexpr, o.subscriber_detection_metadata);
    }
    if (r != Z_OK && !background) {
        (void)parts_undeclare(st);
    } else if (background) {
        state_unref(st); /* its parts live on, and the state with them, until the session closes */
    } else {
        out->_val.state = st;
    }
    return r;
}

z_result_t ze_declare_advanced_subscriber(const z_loaned_session_t *zs, ze_owned_advanced_subscriber_t *subscriber,
                                          const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                          ze_advanced_subscriber_options_t *options)
{
    if (subscriber == NULL) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
    ze_internal_advanced_subscriber_null(subscriber);
    return declare(zs, subscriber, keyexpr, callback, options);
}

z_result_t ze_declare_background_advanced_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                                     z_moved_closure_sample_t *callback,
                                                     ze_advanced_subscriber_options_t *options)
{
    return declare(zs, NULL, keyexpr, callback, options);
}

z_result_t ze_undeclare_advanced_subscriber(ze_moved_advanced_subscriber_t *subscriber)
{
    if (subscriber == NULL || subscriber->_this._val.state == NULL) {
        return Z_ENULL;
    }
    struct zm_api_adv_sub *st = subscriber->_this._val.state;
    subscriber->_this._val.state = NULL;
    return parts_undeclare(st);
}

const z_loaned_keyexpr_t *ze_advanced_subscriber_keyexpr(const ze_loaned_advanced_subscriber_t *subscriber)
{
    return subscriber != NULL && subscriber->state != NULL ? z_subscriber_keyexpr(z_loan(subscriber->state->sub)) : NULL;
}

z_entity_global_id_t ze_advanced_subscriber_id(const ze_loaned_advanced_subscriber_t *subscriber)
{
    z_entity_global_id_t none;
    memset(&none, 0, sizeof(none));
    return subscriber != NULL && subscriber->state != NULL ? z_subscriber_id(z_loan(subscriber->state->sub)) : none;
}

/* ---- miss listeners ------------------------------------------------------------------------------- */

z_result_t ze_advanced_subscriber_declare_sample_miss_listener(const ze_loaned_advanced_subscriber_t *subscriber,
                                                               ze_owned_sample_miss_listener_t *sample_miss_listener,
                                                               ze_moved_closure_miss_t *callback)
{
    if (sample_miss_listener != NULL) {
        ze_internal_sample_miss_listener_null(sample_miss_listener);
    }
    listener_t *l = NULL;
    if (subscriber == NULL || subscriber->state == NULL || callback == NULL ||
        !ze_internal_closure_miss_check(&callback->_this) || (l = zm_alloc(sizeof(*l))) == NULL) {
        ze_closure_miss_drop(callback);
        return l == NULL && subscriber != NULL && subscriber->state != NULL && callback != NULL ? ZM_E_NOMEM : Z_EINVAL;
    }
    struct zm_api_adv_sub *st = subscriber->state;
    ze_closure_miss_take(&l->closure, callback);
    LOCK(st);
    l->id = st->next_id++;
    l->next = st->listeners;
    st->listeners = l;
    UNLOCK(st);
    if (sample_miss_listener != NULL) {
        sample_miss_listener->_val.state = state_ref(st);
        sample_miss_listener->_val.id = l->id;
    }
    return Z_OK;
}

z_result_t ze_advanced_subscriber_declare_background_sample_miss_listener(
    const ze_loaned_advanced_subscriber_t *subscriber, ze_moved_closure_miss_t *callback)
{
    return ze_advanced_subscriber_declare_sample_miss_listener(subscriber, NULL, callback);
}

z_result_t ze_undeclare_sample_miss_listener(ze_moved_sample_miss_listener_t *sample_miss_listener)
{
    if (sample_miss_listener == NULL || sample_miss_listener->_this._val.state == NULL) {
        return Z_ENULL;
    }
    struct zm_api_adv_sub *st = sample_miss_listener->_this._val.state;
    size_t id = sample_miss_listener->_this._val.id;
    ze_internal_sample_miss_listener_null(&sample_miss_listener->_this);
    LOCK(st);
    listener_t **link = &st->listeners;
    while (*link != NULL && (*link)->id != id) {
        link = &(*link)->next;
    }
    listener_t *l = *link;
    if (l != NULL) {
        *link = l->next;
    }
    UNLOCK(st);
    if (l != NULL) { /* else its subscriber went first, and dropped it */
        ze_closure_miss_drop(ze_closure_miss_move(&l->closure));
        zm_free(l);
    }
    state_unref(st);
    return Z_OK;
}

/* ---- publisher detection -------------------------------------------------------------------------- */

z_result_t ze_advanced_subscriber_detect_publishers(const ze_loaned_advanced_subscriber_t *subscriber,
                                                    z_owned_subscriber_t *liveliness_subscriber,
                                                    z_moved_closure_sample_t *callback,
                                                    z_liveliness_subscriber_options_t *options)
{
    if (liveliness_subscriber != NULL) {
        z_internal_subscriber_null(liveliness_subscriber);
    }
    if (subscriber == NULL || subscriber->state == NULL) {
        z_closure_sample_drop(callback);
        return Z_EINVAL;
    }
    struct zm_api_adv_sub *st = subscriber->state;
    z_owned_keyexpr_t pubs;
    z_result_t r = z_keyexpr_concat(&pubs, z_loan(st->key), "/@adv/pub/**", 12);
    if (r != Z_OK) {
        z_closure_sample_drop(callback);
        return r;
    }
    r = liveliness_subscriber != NULL
            ? z_liveliness_declare_subscriber(&st->session, liveliness_subscriber, z_loan(pubs), callback, options)
            : z_liveliness_declare_background_subscriber(&st->session, z_loan(pubs), callback, options);
    z_keyexpr_drop(z_move(pubs));
    return r;
}

z_result_t ze_advanced_subscriber_detect_publishers_background(const ze_loaned_advanced_subscriber_t *subscriber,
                                                               z_moved_closure_sample_t *callback,
                                                               z_liveliness_subscriber_options_t *options)
{
    return ze_advanced_subscriber_detect_publishers(subscriber, NULL, callback, options);
}

/* ---- the owned types ------------------------------------------------------------------------------ */

void ze_internal_advanced_subscriber_null(ze_owned_advanced_subscriber_t *obj)
{
    if (obj != NULL) {
        obj->_val.state = NULL;
    }
}

bool ze_internal_advanced_subscriber_check(const ze_owned_advanced_subscriber_t *obj)
{
    return obj != NULL && obj->_val.state != NULL;
}

void ze_advanced_subscriber_take(ze_owned_advanced_subscriber_t *obj, ze_moved_advanced_subscriber_t *src)
{
    if (obj != NULL) {
        obj->_val.state = src != NULL ? src->_this._val.state : NULL;
    }
    if (src != NULL) {
        ze_internal_advanced_subscriber_null(&src->_this);
    }
}

void ze_advanced_subscriber_drop(ze_moved_advanced_subscriber_t *obj) { (void)ze_undeclare_advanced_subscriber(obj); }

void ze_internal_sample_miss_listener_null(ze_owned_sample_miss_listener_t *obj)
{
    if (obj != NULL) {
        obj->_val.state = NULL;
        obj->_val.id = 0;
    }
}

bool ze_internal_sample_miss_listener_check(const ze_owned_sample_miss_listener_t *obj)
{
    return obj != NULL && obj->_val.state != NULL;
}

void ze_sample_miss_listener_take(ze_owned_sample_miss_listener_t *obj, ze_moved_sample_miss_listener_t *src)
{
    if (obj != NULL) {
        obj->_val = src != NULL ? src->_this._val : (zm_api_sample_miss_listener_t){NULL, 0};
    }
    if (src != NULL) {
        ze_internal_sample_miss_listener_null(&src->_this);
    }
}

void ze_sample_miss_listener_drop(ze_moved_sample_miss_listener_t *obj) { (void)ze_undeclare_sample_miss_listener(obj); }

z_result_t ze_closure_miss(ze_owned_closure_miss_t *closure, ze_closure_miss_callback_t call,
                           z_closure_drop_callback_t drop, void *context)
{
    if (closure == NULL) {
        return Z_EINVAL;
    }
    closure->_val.call = call;
    closure->_val.drop = drop;
    closure->_val.context = context;
    return Z_OK;
}

void ze_closure_miss_call(const ze_loaned_closure_miss_t *closure, const ze_miss_t *miss)
{
    if (closure != NULL && closure->call != NULL) {
        closure->call(miss, closure->context);
    }
}

void ze_internal_closure_miss_null(ze_owned_closure_miss_t *obj)
{
    if (obj != NULL) {
        obj->_val.call = NULL;
        obj->_val.drop = NULL;
        obj->_val.context = NULL;
    }
}

bool ze_internal_closure_miss_check(const ze_owned_closure_miss_t *obj) { return obj != NULL && obj->_val.call != NULL; }

void ze_closure_miss_take(ze_owned_closure_miss_t *obj, ze_moved_closure_miss_t *src)
{
    if (obj != NULL) {
        obj->_val = src != NULL ? src->_this._val : (zm_api_closure_miss_t){NULL, NULL, NULL};
    }
    if (src != NULL) {
        ze_internal_closure_miss_null(&src->_this);
    }
}

void ze_closure_miss_drop(ze_moved_closure_miss_t *obj)
{
    if (obj == NULL) {
        return;
    }
    z_closure_drop_callback_t drop = obj->_this._val.drop;
    void *context = obj->_this._val.context;
    ze_internal_closure_miss_null(&obj->_this);
    if (drop != NULL) {
        drop(context);
    }
}

#endif /* ZM_UNSTABLE_API && Z_FEATURE_ADVANCED_SUBSCRIPTION */
