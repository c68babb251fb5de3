/*
 * zm_query: the zmote end of the query interop tests (tests/interop/test_query.py), through the
 * public API only.
 *
 *   zm_query get -k KEY [-p PARAMS] [-c auto|none|monotonic|latest] [-T best|all|complete]
 *                [-s SIZE] [-a] [-o any|local|remote] [-g N] [-t TIMEOUT_MS] [-w]
 *     sends N gets (default 1) one after the other, with a SIZE-byte pattern payload; prints
 *     "reply ok KEY kind=K len=N ts=T check=ok|bad" or "reply err len=N text=..." per reply and
 *     "end n=N ms=T" when each get ends. -w waits for a "go" line on stdin first. -r MS sends
 *     the N gets every MS ms without waiting for their ends (each failure prints "get failed
 *     RC", and the next goes on), then prints "sent n=N failed=F" and, once every get it sent
 *     ended (or at the deadline), "ended n=E replies=R".
 *   zm_query qbl -k KEY [-s SIZE] [-R KEY] [-E|-D] [-C] [-L] [-n COUNT] [-o any|local|remote]
 *     answers each query with a SIZE-byte pattern (default "answer" text) on the query's key or
 *     on -R KEY, or an error (-E) or a deletion (-D); -C declares it complete; -L keeps the query
 *     (z_query_clone) and replies from another thread after the callback returned. Prints
 *     "ready", then "query KEY params=P len=N check=ok|bad" and "replied rc=R" per query.
 *   zm_query both -k KEY ...: a queryable and then gets in one session (local queries).
 *   zm_query querier -k KEY [-T target] [-o ...]: a querier and its matching listener, which
 *     prints "querier matching 1|0" at each change; it ends when stdin closes.
 *
 * Common: -m mode, -e connect, -l listen; everything ends at the -t deadline (default 20 s).
 * Payload pattern: byte i = (i * 7 + 3) mod 251.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zenoh-pico.h"

#if Z_FEATURE_QUERY == 1 && Z_FEATURE_QUERYABLE == 1 && Z_FEATURE_MULTI_THREAD == 1

#define QUERY_OPTIONS "m:e:l:k:p:c:T:s:ao:g:t:wR:EDCLn:r:"

typedef struct {
    const char *key;
    const char *params;
    z_consolidation_mode_t consolidation;
    z_query_target_t target;
    size_t size;
    bool any_key;
    z_locality_t locality;
    long gets;
    long timeout_ms;
    bool wait_go;
    const char *reply_key;
    bool reply_err;
    bool reply_del;
    bool complete;
    bool later;
    long count;
    long rate_ms;
} args_t;

static args_t args = {.key = "zm/q/**",
                      .params = "",
                      .consolidation = Z_CONSOLIDATION_MODE_AUTO,
                      .target = Z_QUERY_TARGET_BEST_MATCHING,
                      .locality = Z_LOCALITY_ANY,
                      .gets = 1,
                      .timeout_ms = 20000};

static z_owned_mutex_t mutex;
static z_owned_condvar_t cond;
static bool get_done;
static long replies;
static z_owned_query_t kept;
static bool kept_set;
static atomic_long answered;
static long ended; /* gets ended (-r), under mutex */
static long replies_all; /* replies to every get (-r), under mutex */

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000L + (long)(t.tv_nsec / 1000000L);
}

static uint8_t pattern_byte(size_t i) { return (uint8_t)((i * 7u + 3u) % 251u); }

static bool pattern_ok(const z_loaned_bytes_t *b, size_t *len)
{
    z_owned_slice_t sl;
    if (z_bytes_to_slice(b, &sl) != Z_OK) {
        return false;
    }
    const uint8_t *d = z_slice_data(z_loan(sl));
    *len = z_slice_len(z_loan(sl));
    bool ok = true;
    for (size_t i = 0; i < *len && ok; i++) {
        ok = d[i] == pattern_byte(i);
    }
    z_drop(z_move(sl));
    return ok;
}

static void payload_make(z_owned_bytes_t *b, size_t size, const char *text)
{
    if (size == 0) {
        z_bytes_copy_from_str(b, text);
        return;
    }
    uint8_t *d = malloc(size);
    for (size_t i = 0; i < size; i++) {
        d[i] = pattern_byte(i);
    }
    z_bytes_copy_from_buf(b, d, size);
    free(d);
}

/* ---- get --------------------------------------------------------------------------------------- */

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    if (z_reply_is_ok(reply)) {
        const z_loaned_sample_t *s = z_reply_ok(reply);
        z_view_string_t key;
        z_keyexpr_as_view_string(z_sample_keyexpr(s), &key);
        size_t len = 0;
        bool ok = pattern_ok(z_sample_payload(s), &len);
        const z_timestamp_t *ts = z_sample_timestamp(s);
        printf("reply ok %.*s kind=%s len=%zu ts=%llu check=%s\n", (int)z_string_len(z_loan(key)),
               z_string_data(z_loan(key)), z_sample_kind(s) == Z_SAMPLE_KIND_PUT ? "PUT" : "DELETE", len,
               ts != NULL ? (unsigned long long)z_timestamp_ntp64_time(ts) : 0ULL, ok ? "ok" : "bad");
    } else {
        z_owned_string_t text;
        z_bytes_to_string(z_reply_err_payload(z_reply_err(reply)), &text);
        printf("reply err len=%zu text=%.*s\n", z_string_len(z_loan(text)), (int)z_string_len(z_loan(text)),
               z_string_data(z_loan(text)));
        z_drop(z_move(text));
    }
    z_mutex_lock(z_loan_mut(mutex));
    replies++;
    replies_all++;
    z_mutex_unlock(z_loan_mut(mutex));
}

static void on_end(void *ctx)
{
    (void)ctx;
    z_mutex_lock(z_loan_mut(mutex));
    get_done = true;
    ended++;
    z_condvar_signal(z_loan_mut(cond));
    z_mutex_unlock(z_loan_mut(mutex));
}

static int run_gets(const z_loaned_session_t *s)
{
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args.key) < 0) {
        printf("bad key %s\n", args.key);
        return 2;
    }
    long failed = 0;
    for (long g = 0; g < args.gets; g++) {
        z_get_options_t opts;
        z_get_options_default(&opts);
        opts.consolidation.mode = args.consolidation;
        opts.target = args.target;
        opts.timeout_ms = (uint64_t)args.timeout_ms;
        opts.accept_replies = args.any_key ? Z_REPLY_KEYEXPR_ANY : Z_REPLY_KEYEXPR_MATCHING_QUERY;
        opts.allowed_destination = args.locality;
        z_owned_bytes_t payload;
        if (args.size > 0) {
            payload_make(&payload, args.size, "");
            opts.payload = z_move(payload);
        }
        z_owned_closure_reply_t cb;
        z_closure(&cb, on_reply, on_end, NULL);
        if (args.rate_ms > 0) { /* the next get goes on whether this one ended or not */
            z_result_t r = z_get(s, z_loan(ke), args.params, z_move(cb), &opts);
            if (r != Z_OK) {
                printf("get failed %d\n", (int)r);
                failed++;
            }
            z_sleep_ms((size_t)args.rate_ms);
            continue;
        }
        z_mutex_lock(z_loan_mut(mutex));
        get_done = false;
        replies = 0;
        long start = now_ms();
        z_result_t r = z_get(s, z_loan(ke), args.params, z_move(cb), &opts);
        if (r != Z_OK) {
            z_mutex_unlock(z_loan_mut(mutex));
            printf("get failed %d\n", (int)r);
            return 1;
        }
        while (!get_done) {
            z_condvar_wait(z_loan_mut(cond), z_loan_mut(mutex));
        }
        printf("end n=%ld ms=%ld\n", replies, now_ms() - start);
        z_mutex_unlock(z_loan_mut(mutex));
    }
    if (args.rate_ms > 0) {
        printf("sent n=%ld failed=%ld\n", args.gets, failed);
        long deadline = now_ms() + args.timeout_ms + 5000;
        z_mutex_lock(z_loan_mut(mutex));
        while (ended < args.gets - failed && now_ms() < deadline) {
            z_mutex_unlock(z_loan_mut(mutex));
            z_sleep_ms(50);
            z_mutex_lock(z_loan_mut(mutex));
        }
        printf("ended n=%ld replies=%ld\n", ended, replies_all);
        z_mutex_unlock(z_loan_mut(mutex));
    }
    return 0;
}

/* ---- queryable --------------------------------------------------------------------------------- */

static void answer(const z_loaned_query_t *query)
{
    z_result_t r;
    if (args.reply_err) {
        z_owned_bytes_t b;
        z_bytes_copy_from_str(&b, "no answer here");
        r = z_query_reply_err(query, z_move(b), NULL);
    } else {
        z_view_keyexpr_t rk;
        const z_loaned_keyexpr_t *key = z_query_keyexpr(query);
        if (args.reply_key != NULL) {
            z_view_keyexpr_from_str(&rk, args.reply_key);
            key = z_loan(rk);
        }
        if (args.reply_del) {
            r = z_query_reply_del(query, key, NULL);
        } else {
            z_owned_bytes_t b;
            payload_make(&b, args.size, "answer");
            r = z_query_reply(query, key, z_move(b), NULL);
        }
    }
    printf("replied rc=%d\n", (int)r);
}

static void on_query(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
    z_view_string_t key, params;
    z_keyexpr_as_view_string(z_query_keyexpr(query), &key);
    z_query_parameters(query, &params);
    size_t len = 0;
    bool ok = pattern_ok(z_query_payload(query), &len);
    printf("query %.*s params=%.*s len=%zu check=%s\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)),
           (int)z_string_len(z_loan(params)), z_string_data(z_loan(params)), len, ok ? "ok" : "bad");
    if (!args.later) {
        answer(query);
        atomic_fetch_add(&answered, 1);
        return;
    }
    z_mutex_lock(z_loan_mut(mutex));
    if (!kept_set && z_query_clone(&kept, query) == Z_OK) {
        kept_set = true;
        z_condvar_signal(z_loan_mut(cond));
    }
    z_mutex_unlock(z_loan_mut(mutex));
}

static int serve(const z_loaned_session_t *s, z_owned_queryable_t *q)
{
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args.key) < 0) {
        printf("bad key %s\n", args.key);
        return 2;
    }
    z_queryable_options_t opts;
    z_queryable_options_default(&opts);
    opts.complete = args.complete;
    opts.allowed_origin = args.locality;
    z_owned_closure_query_t cb;
    z_closure(&cb, on_query, NULL, NULL);
    if (z_declare_queryable(s, q, z_loan(ke), z_move(cb), &opts) != Z_OK) {
        printf("declare failed\n");
        return 1;
    }
    printf("ready\n");
    return 0;
}

/* The main thread replies to the queries kept by the callback (-L), after the callback returned. */
static void answer_kept(void)
{
    while (args.count == 0 || atomic_load(&answered) < args.count) {
        z_mutex_lock(z_loan_mut(mutex));
        while (!kept_set) {
            z_condvar_wait(z_loan_mut(cond), z_loan_mut(mutex));
        }
        kept_set = false;
        z_mutex_unlock(z_loan_mut(mutex));
        answer(z_loan(kept));
        z_drop(z_move(kept)); /* the final response goes now */
        atomic_fetch_add(&answered, 1);
    }
}

/* ---- querier matching ------------------------------------------------------------------------- */

static void on_matching(const z_matching_status_t *status, void *ctx)
{
    (void)ctx;
    printf("querier matching %d\n", status->matching ? 1 : 0);
}

static int run_querier(const z_loaned_session_t *s)
{
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args.key) < 0) {
        printf("bad key %s\n", args.key);
        return 2;
    }
    z_querier_options_t opts;
    z_querier_options_default(&opts);
    opts.target = args.target;
    opts.allowed_destination = args.locality;
    z_owned_querier_t querier;
    if (z_declare_querier(s, &querier, z_loan(ke), &opts) != Z_OK) {
        printf("declare failed\n");
        return 1;
    }
    z_matching_status_t now;
    z_querier_get_matching_status(z_loan(querier), &now);
    printf("querier status %d\n", now.matching ? 1 : 0);
    z_owned_closure_matching_status_t cb;
    z_closure(&cb, on_matching, NULL, NULL);
    z_owned_matching_listener_t listener;
    if (z_querier_declare_matching_listener(z_loan(querier), &listener, z_move(cb)) != Z_OK) {
        printf("listener failed\n");
        return 1;
    }
    printf("ready\n");
    char line[64];
    while (fgets(line, sizeof(line), stdin) != NULL) {
    }
    z_drop(z_move(listener));
    z_drop(z_move(querier));
    return 0;
}

/* ---- main -------------------------------------------------------------------------------------- */

static z_locality_t locality_of(const char *s)
{
    return strcmp(s, "local") == 0 ? Z_LOCALITY_SESSION_LOCAL
                                   : strcmp(s, "remote") == 0 ? Z_LOCALITY_REMOTE : Z_LOCALITY_ANY;
}

static z_consolidation_mode_t consolidation_of(const char *s)
{
    if (strcmp(s, "none") == 0) {
        return Z_CONSOLIDATION_MODE_NONE;
    }
    if (strcmp(s, "monotonic") == 0) {
        return Z_CONSOLIDATION_MODE_MONOTONIC;
    }
    return strcmp(s, "latest") == 0 ? Z_CONSOLIDATION_MODE_LATEST : Z_CONSOLIDATION_MODE_AUTO;
}

static z_query_target_t target_of(const char *s)
{
    return strcmp(s, "all") == 0 ? Z_QUERY_TARGET_ALL
                                 : strcmp(s, "complete") == 0 ? Z_QUERY_TARGET_ALL_COMPLETE
                                                              : Z_QUERY_TARGET_BEST_MATCHING;
}

static int parse(int argc, char **argv, z_owned_config_t *config)
{
    int opt;
    while ((opt = getopt(argc, argv, QUERY_OPTIONS)) != -1) {
        switch (opt) {
        case 'm':
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_MODE_KEY, optarg);
            break;
        case 'e':
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_CONNECT_KEY, optarg);
            break;
        case 'l':
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_LISTEN_KEY, optarg);
            break;
        case 'k': args.key = optarg; break;
        case 'p': args.params = optarg; break;
        case 'c': args.consolidation = consolidation_of(optarg); break;
        case 'T': args.target = target_of(optarg); break;
        case 's': args.size = (size_t)atol(optarg); break;
        case 'a': args.any_key = true; break;
        case 'o': args.locality = locality_of(optarg); break;
        case 'g': args.gets = atol(optarg); break;
        case 't': args.timeout_ms = atol(optarg); break;
        case 'w': args.wait_go = true; break;
        case 'R': args.reply_key = optarg; break;
        case 'E': args.reply_err = true; break;
        case 'D': args.reply_del = true; break;
        case 'C': args.complete = true; break;
        case 'L': args.later = true; break;
        case 'n': args.count = atol(optarg); break;
        case 'r': args.rate_ms = atol(optarg); break;
        default:
            return 2;
        }
    }
    return 0;
}

static void wait_go(void)
{
    char line[64];
    while (fgets(line, sizeof(line), stdin) != NULL) {
        if (strncmp(line, "go", 2) == 0) {
            return;
        }
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: zm_query get|qbl|both [options]\n");
        return 2;
    }
    const char *mode = argv[1];
    z_owned_config_t config;
    z_config_default(&config);
    optind = 2;
    if (parse(argc, argv, &config) != 0) {
        z_drop(z_move(config));
        return 2;
    }
    z_mutex_init(&mutex);
    z_condvar_init(&cond);
    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) != Z_OK) {
        printf("open failed\n");
        return 1;
    }
    long deadline = now_ms() + args.timeout_ms + 5000;
    int rc = 0;
    z_owned_queryable_t q;
    z_internal_null(&q);
    if (strcmp(mode, "qbl") == 0 || strcmp(mode, "both") == 0) {
        rc = serve(z_loan(s), &q);
    }
    if (strcmp(mode, "querier") == 0) {
        rc = run_querier(z_loan(s));
    } else if (rc == 0 && (strcmp(mode, "get") == 0 || strcmp(mode, "both") == 0)) {
        if (args.wait_go) {
            wait_go();
        }
        rc = run_gets(z_loan(s));
    } else if (rc == 0 && args.later) {
        answer_kept();
    } else if (rc == 0) {
        while ((args.count == 0 || atomic_load(&answered) < args.count) && now_ms() < deadline) {
            z_sleep_ms(10);
        }
    }
    z_drop(z_move(q));
    z_drop(z_move(s));
    z_drop(z_move(cond));
    z_drop(z_move(mutex));
    return rc;
}

#else
int main(void)
{
    printf("zm_query needs Z_FEATURE_QUERY, Z_FEATURE_QUERYABLE and Z_FEATURE_MULTI_THREAD\n");
    return 2;
}
#endif
