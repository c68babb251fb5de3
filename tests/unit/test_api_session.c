/*
 * The Zenoh C API over real sessions in one process: a peer listening on loopback TCP with
 * subscribers (callback, fifo channel, background), another peer connecting and publishing
 * (z_put, z_delete, publishers, declared key expressions, options), local delivery, session
 * info, closing in any order, and a counting allocator showing that a steady stream of puts
 * and received samples allocates nothing. Waits are on condvars with deadlines.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/alloc.h"
#include "zenoh-pico.h"
#include "zmote/port.h"

static atomic_long allocs;
static atomic_long frees;

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    atomic_fetch_add(&allocs, 1);
    return malloc(size);
}

static void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    atomic_fetch_add(&frees, 1);
    free(ptr);
}

/* ---- what a subscriber saw ------------------------------------------------------------------------ */

typedef struct {
    z_owned_mutex_t lock;
    z_owned_condvar_t cond;
    unsigned count;
    unsigned deletes;
    char key[64];
    uint8_t payload[64];
    size_t payload_len;
    uint16_t encoding;
    char schema[16];
    size_t attachment_len;
    bool timestamped;
    z_id_t ts_id;
    bool matching; /* as a publisher's matching listener last said */
    atomic_int drops;
} inbox_t;

static void inbox_init(inbox_t *in)
{
    memset(in, 0, sizeof(*in));
    CHECK_EQ_INT(z_mutex_init(&in->lock), Z_OK);
    CHECK_EQ_INT(z_condvar_init(&in->cond), Z_OK);
}

static void inbox_fini(inbox_t *in)
{
    z_drop(z_move(in->cond));
    z_drop(z_move(in->lock));
}

/* Appends str to w as a run of its own (z_bytes_writer_append keeps it, without copying). */
static void append_static(z_loaned_bytes_writer_t *w, const char *str)
{
    z_owned_bytes_t part;
    z_bytes_from_static_str(&part, str);
    CHECK_EQ_INT(z_bytes_writer_append(w, z_move(part)), Z_OK);
}

static void copy_text(char *dst, size_t cap, const char *src, size_t len)
{
    size_t n = len < cap - 1 ? len : cap - 1;
    if (n > 0) {
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    inbox_t *in = ctx;
    z_mutex_lock(z_loan_mut(in->lock));
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    copy_text(in->key, sizeof(in->key), z_string_data(z_loan(key)), z_string_len(z_loan(key)));
    z_bytes_reader_t r = z_bytes_get_reader(z_sample_payload(sample));
    in->payload_len = z_bytes_reader_read(&r, in->payload, sizeof(in->payload));
    in->encoding = z_sample_encoding(sample)->id;
    copy_text(in->schema, sizeof(in->schema), (const char *)z_sample_encoding(sample)->schema.slice.start,
              z_sample_encoding(sample)->schema.slice.len);
    in->attachment_len = z_bytes_len(z_sample_attachment(sample));
    const z_timestamp_t *ts = z_sample_timestamp(sample);
    in->timestamped = ts != NULL;
    if (ts != NULL) {
        in->ts_id = z_timestamp_id(ts);
    }
    in->deletes += z_sample_kind(sample) == Z_SAMPLE_KIND_DELETE;
    in->count++;
    z_condvar_signal(z_loan_mut(in->cond));
    z_mutex_unlock(z_loan_mut(in->lock));
}

static void on_drop(void *ctx)
{
    inbox_t *in = ctx;
    atomic_fetch_add(&in->drops, 1);
}

/* Waits until done(in, arg) holds, at most ms, with in->lock held while it is asked; true if it did. */
static bool inbox_wait(inbox_t *in, bool (*done)(const inbox_t *in, const void *arg), const void *arg,
                       unsigned long ms)
{
    z_clock_t deadline = z_clock_now();
    z_clock_advance_ms(&deadline, ms);
    z_mutex_lock(z_loan_mut(in->lock));
    bool ok;
    while (!(ok = done(in, arg)) &&
           z_condvar_wait_until(z_loan_mut(in->cond), z_loan_mut(in->lock), &deadline) != Z_ETIMEDOUT) {
    }
    z_mutex_unlock(z_loan_mut(in->lock));
    return ok;
}

static bool has_count(const inbox_t *in, const void *n) { return in->count >= *(const unsigned *)n; }

/* Waits until the inbox has seen n samples, at most ms; true if it did. */
static bool wait_for(inbox_t *in, unsigned n, unsigned long ms) { return inbox_wait(in, has_count, &n, ms); }

static unsigned inbox_count(inbox_t *in)
{
    z_mutex_lock(z_loan_mut(in->lock));
    unsigned n = in->count;
    z_mutex_unlock(z_loan_mut(in->lock));
    return n;
}

/* ---- sessions ----------------------------------------------------------------------------------------- */

static uint16_t free_port(void)
{
    zm_socket_t sock;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&sock, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&sock, &port), Z_OK);
    zm_port_socket_close(&sock);
    return port;
}

static z_result_t open_session(z_owned_session_t *s, const char *mode, const char *listen, const char *connect,
                               const char *zid)
{
    z_owned_config_t c;
    z_config_default(&c);
    if (mode != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, mode);
    }
    if (listen != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    }
    if (connect != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, connect);
    }
    if (zid != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_SESSION_ZID_KEY, zid);
    }
    return z_open(s, z_move(c), NULL);
}

#if ZM_AUTH_USRPWD
/* Opens a client of a closed port with the credentials given (NULL: not set); its result. */
static z_result_t open_with_auth(const char *user, const char *password, const char *dictionary)
{
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, "tcp/127.0.0.1:1");
    const uint8_t keys[] = {Z_CONFIG_USER_KEY, Z_CONFIG_PASSWORD_KEY, ZM_CONFIG_USRPWD_DICTIONARY_KEY};
    const char *values[] = {user, password, dictionary};
    for (size_t i = 0; i < 3; i++) {
        if (values[i] != NULL) {
            zp_config_insert(z_loan_mut(c), keys[i], values[i]);
        }
    }
    z_owned_session_t s;
    z_result_t rc = z_open(&s, z_move(c), NULL);
    z_drop(z_move(s));
    return rc;
}
#endif

static void test_open_errors(void)
{
    long before = atomic_load(&allocs) - atomic_load(&frees);
    z_owned_session_t s;
    z_owned_config_t c;
    z_config_default(&c);
    /* no locator and multicast scouting off: nothing to connect to (scouting would send multicast) */
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MULTICAST_SCOUTING_KEY, "false");
    CHECK_EQ_INT(z_open(&s, z_move(c), NULL), Z_EINVAL);
    CHECK(!z_internal_check(s));
    CHECK(!z_internal_check(c)); /* taken */
    CHECK_EQ_INT(open_session(&s, "router", NULL, "tcp/127.0.0.1:1", NULL), _Z_ERR_CONFIG_INVALID_MODE);
    CHECK_EQ_INT(open_session(&s, NULL, NULL, "tcp/127.0.0.1:1", "12-zz"), Z_EINVAL);
    CHECK_EQ_INT(open_session(&s, NULL, NULL, "tcp/127.0.0.1:1", "00000000000000000000000000000000"), Z_EINVAL);
    CHECK_EQ_INT(z_open(&s, NULL, NULL), Z_EINVAL);
#if ZM_AUTH_USRPWD
    /* credentials refused before any connect: half a pair, an empty side, a dictionary that does
     * not read; good ones go on to the connect, which the closed port refuses */
    CHECK_EQ_INT(open_with_auth("u", NULL, NULL), Z_EINVAL);
    CHECK_EQ_INT(open_with_auth(NULL, "p", NULL), Z_EINVAL);
    CHECK_EQ_INT(open_with_auth("", "p", NULL), Z_EINVAL);
    CHECK_EQ_INT(open_with_auth(NULL, NULL, "user-without-password"), Z_EINVAL);
    z_result_t good = open_with_auth("u", "p", "u:p");
    CHECK(good < 0 && good != Z_EINVAL);
#endif
    char closed[64];
    snprintf(closed, sizeof(closed), "tcp/127.0.0.1:%u", free_port());
    CHECK(open_session(&s, NULL, NULL, closed, NULL) < 0);
    CHECK(!z_internal_check(s));
    z_drop(z_move(s));
    CHECK(z_session_is_closed(z_loan(s)));
    CHECK_EQ_INT(atomic_load(&allocs) - atomic_load(&frees), before);
}

static void count_zid(const z_id_t *id, void *ctx)
{
    z_id_t *seen = ctx;
    *seen = *id;
    seen->id[15] = (uint8_t)(seen->id[15] + 1); /* marks a call: the zids used here end in 0 */
}

#ifdef Z_FEATURE_UNSTABLE_API
/* ---- connection establishment: the connect and listen timeouts and exit_on_failure ------------ */

/* open_session with the connection establishment keys given as (key, value) pairs, 0-terminated. */
static z_result_t open_with(z_owned_session_t *s, const char *mode, const char *listen, const char *const *connect,
                            const uint8_t *keys, const char *const *values)
{
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, mode);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MULTICAST_SCOUTING_KEY, "false");
    if (listen != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    }
    for (size_t i = 0; connect != NULL && connect[i] != NULL; i++) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, connect[i]);
    }
    for (size_t i = 0; keys != NULL && keys[i] != 0; i++) {
        zp_config_insert(z_loan_mut(c), keys[i], values[i]);
    }
    return z_open(s, z_move(c), NULL);
}

typedef struct {
    char endpoint[64];
    uint32_t after_ms;
    z_owned_session_t s;
    z_result_t rc;
} late_listener_t;

/* A peer that starts listening on its endpoint after_ms after the thread starts: what a client
 * meets when it starts before its router. */
static void *listen_late(void *arg)
{
    late_listener_t *l = arg;
    z_sleep_ms(l->after_ms);
    l->rc = open_session(&l->s, "peer", l->endpoint, NULL, NULL);
    return NULL;
}

static size_t peers_of(const z_owned_session_t *s)
{
    z_id_t seen;
    memset(&seen, 0, sizeof(seen));
    z_owned_closure_zid_t zc;
    z_closure(&zc, count_zid, NULL, &seen);
    CHECK_EQ_INT(z_info_peers_zid(z_loan(*s), z_move(zc)), Z_OK);
    return seen.id[15];
}

static void test_open_retries(void)
{
    long before = atomic_load(&allocs) - atomic_load(&frees);
    z_owned_session_t s;
    char closed[64];
    snprintf(closed, sizeof(closed), "tcp/127.0.0.1:%u", free_port());
    const char *to_closed[] = {closed, NULL};

    /* a connect timeout retries an endpoint nobody listens on yet: the client gets its router */
    late_listener_t late = {.after_ms = 300};
    snprintf(late.endpoint, sizeof(late.endpoint), "tcp/127.0.0.1:%u", free_port());
    const char *to_late[] = {late.endpoint, NULL};
    const uint8_t connect_timeout[] = {Z_CONFIG_CONNECT_TIMEOUT_KEY, 0};
    const char *const ten_s[] = {"10000"};
    z_owned_task_t task;
    CHECK_EQ_INT(z_task_init(&task, NULL, listen_late, &late), Z_OK);
    uint64_t t0 = zm_port_clock_ms();
    CHECK_EQ_INT(open_with(&s, "client", NULL, to_late, connect_timeout, ten_s), Z_OK);
    CHECK(zm_port_clock_ms() - t0 >= 250);
    CHECK_EQ_INT(z_task_join(z_move(task)), Z_OK);
    CHECK_EQ_INT(late.rc, Z_OK);
    z_drop(z_move(s));
    z_drop(z_move(late.s));

    /* without a timeout, one try; with one, tries until it is spent, then the error */
    CHECK(open_with(&s, "client", NULL, to_closed, NULL, NULL) < 0);
    const char *const short_timeout[] = {"400"};
    t0 = zm_port_clock_ms();
    CHECK_EQ_INT(open_with(&s, "client", NULL, to_closed, connect_timeout, short_timeout), ZM_E_REFUSED);
    uint64_t took = zm_port_clock_ms() - t0;
    CHECK_CTX(took >= 400 && took < 5000, "retried for %llu ms", (unsigned long long)took);

    /* a listen endpoint in use: the open fails, unless the peer may go on without it */
    z_owned_session_t a;
    char a_ep[64];
    snprintf(a_ep, sizeof(a_ep), "tcp/127.0.0.1:%u", free_port());
    CHECK_EQ_INT(open_session(&a, "peer", a_ep, NULL, "c1000000000000000000000000000000"), Z_OK);
    const char *to_a[] = {a_ep, NULL};
    CHECK_EQ_INT(open_with(&s, "peer", a_ep, to_a, NULL, NULL), ZM_E_ADDR_IN_USE);
    const uint8_t listen_exit[] = {Z_CONFIG_LISTEN_EXIT_ON_FAILURE_KEY, 0};
    const char *const no[] = {"false"};
    CHECK_EQ_INT(open_with(&s, "peer", a_ep, to_a, listen_exit, no), Z_OK);
    CHECK_EQ_INT(peers_of(&s), 1);
    z_drop(z_move(s));

    /* a peer goes on without some connect endpoints, unless exit_on_failure: then an endpoint
     * that fails for good fails the open at once, one that fails for a while at the timeout */
    const char *good_and_bad[] = {a_ep, "tcp/127.0.0.1:99999", NULL};
    CHECK_EQ_INT(open_with(&s, "peer", NULL, good_and_bad, NULL, NULL), Z_OK);
    CHECK_EQ_INT(peers_of(&s), 1);
    z_drop(z_move(s));
    const uint8_t strict[] = {Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY, 0};
    const char *const yes[] = {"true"};
    CHECK(open_with(&s, "peer", NULL, good_and_bad, strict, yes) < 0);
    const char *good_and_closed[] = {a_ep, closed, NULL};
    const uint8_t strict_timeout[] = {Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY, Z_CONFIG_CONNECT_TIMEOUT_KEY, 0};
    const char *const yes_300[] = {"true", "300"};
    t0 = zm_port_clock_ms();
    CHECK_EQ_INT(open_with(&s, "peer", NULL, good_and_closed, strict_timeout, yes_300), ZM_E_REFUSED);
    CHECK(zm_port_clock_ms() - t0 >= 300);
    CHECK_EQ_INT(open_with(&s, "peer", NULL, to_a, strict, yes), Z_OK); /* all reached */
    z_drop(z_move(s));
    z_drop(z_move(a));

    /* values that are neither milliseconds nor -1, nor a boolean */
    const char *const bad[][1] = {{"abc"}, {"-2"}, {""}};
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(open_with(&s, "client", NULL, to_closed, connect_timeout, bad[i]), Z_EINVAL);
    }
    const char *const maybe[] = {"maybe"};
    CHECK_EQ_INT(open_with(&s, "peer", NULL, to_closed, strict, maybe), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&allocs) - atomic_load(&frees), before);
}
#endif

static void test_pubsub(void)
{
    long before = atomic_load(&allocs) - atomic_load(&frees);
    char listen[64], connect[64];
    uint16_t port = free_port();
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", port);
    snprintf(connect, sizeof(connect), "tcp/127.0.0.1:%u", port);

    z_owned_session_t a, b;
    CHECK_EQ_INT(open_session(&a, "client", listen, NULL, "a1000000000000000000000000000000"), Z_OK);
    CHECK(z_internal_check(a));
    CHECK_EQ_INT(z_info_zid(z_loan(a)).id[0], 0xa1); /* listening made it a peer; zid as configured */

    inbox_t in, bg;
    inbox_init(&in);
    inbox_init(&bg);
    z_view_keyexpr_t all;
    z_view_keyexpr_from_str(&all, "demo/**");
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_sample, on_drop, &in);
    z_owned_subscriber_t sub;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(a), &sub, z_loan(all), z_move(cb), NULL), Z_OK);
    CHECK(z_internal_check(sub));
    CHECK(z_keyexpr_equals(z_subscriber_keyexpr(z_loan(sub)), z_loan(all)));

    z_view_keyexpr_t bgkey;
    z_view_keyexpr_from_str(&bgkey, "demo/bg");
    z_closure(&cb, on_sample, on_drop, &bg);
    CHECK_EQ_INT(z_declare_background_subscriber(z_loan(a), z_loan(bgkey), z_move(cb), NULL), Z_OK);

    z_owned_closure_sample_t chcb;
    z_owned_fifo_handler_sample_t handler;
    CHECK_EQ_INT(z_fifo_channel_sample_new(&chcb, &handler, 3), Z_OK);
    z_view_keyexpr_t chkey;
    z_view_keyexpr_from_str(&chkey, "demo/chan/*");
    z_owned_subscriber_t chsub;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(a), &chsub, z_loan(chkey), z_move(chcb), NULL), Z_OK);

    /* bad arguments: the closure is taken (its drop runs) and nothing is declared */
    inbox_t junk;
    inbox_init(&junk);
    z_view_keyexpr_t empty;
    z_view_keyexpr_empty(&empty);
    z_closure(&cb, on_sample, on_drop, &junk);
    z_owned_subscriber_t bad;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(a), &bad, z_loan(empty), z_move(cb), NULL), Z_EINVAL);
    CHECK(!z_internal_check(bad));
    CHECK_EQ_INT(atomic_load(&junk.drops), 1);
    CHECK(!z_internal_check(cb));
    inbox_fini(&junk);

    /* a closure without a call function is accepted, as zenoh-pico accepts it: samples reach it,
     * nothing is called, and its drop runs once when the subscriber goes */
    inbox_t quiet;
    inbox_init(&quiet);
    z_closure(&cb, NULL, on_drop, &quiet);
    z_view_keyexpr_t quiet_all;
    z_view_keyexpr_from_str(&quiet_all, "quiet/**");
    z_owned_subscriber_t callless;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(a), &callless, z_loan(quiet_all), z_move(cb), NULL), Z_OK);
    z_owned_bytes_t quiet_payload;
    z_bytes_copy_from_str(&quiet_payload, "unheard");
    z_view_keyexpr_t quiet_key;
    z_view_keyexpr_from_str(&quiet_key, "quiet/x");
    CHECK_EQ_INT(z_put(z_loan(a), z_loan(quiet_key), z_move(quiet_payload), NULL), Z_OK);
    CHECK_EQ_INT(z_undeclare_subscriber(z_move(callless)), Z_OK);
    CHECK_EQ_INT(atomic_load(&quiet.drops), 1);
    CHECK_EQ_INT(quiet.count, 0);
    inbox_fini(&quiet);

    z_owned_subscriber_t none;
    z_internal_null(&none);
    CHECK_EQ_INT(z_undeclare_subscriber(z_move(none)), Z_ENULL);

    CHECK_EQ_INT(open_session(&b, "peer", NULL, connect, "b2000000000000000000000000000000"), Z_OK);

    z_id_t peer;
    memset(&peer, 0, sizeof(peer));
    z_owned_closure_zid_t zc;
    z_closure(&zc, count_zid, NULL, &peer);
    CHECK_EQ_INT(z_info_peers_zid(z_loan(b), z_move(zc)), Z_OK);
    CHECK_EQ_INT(peer.id[0], 0xa1);
    CHECK_EQ_INT(peer.id[15], 1);

    z_owned_publisher_t pub;
    z_publisher_options_t popts;
    z_publisher_options_default(&popts);
    z_owned_encoding_t enc;
    z_encoding_from_str(&enc, "text/plain;utf8");
    popts.encoding = z_move(enc);
    popts.congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    z_view_keyexpr_t pkey;
    z_view_keyexpr_from_str(&pkey, "demo/pub");
    CHECK_EQ_INT(z_declare_publisher(z_loan(b), &pub, z_loan(pkey), &popts), Z_OK);
    CHECK(!z_internal_check(enc));
    CHECK(z_keyexpr_equals(z_publisher_keyexpr(z_loan(pub)), z_loan(pkey)));

    /* until the subscriber's declaration has reached b, its puts may go nowhere */
    bool got = false;
    for (int i = 0; i < 300 && !got; i++) {
        z_owned_bytes_t p;
        z_bytes_copy_from_str(&p, "first");
        CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
        got = wait_for(&in, 1, 10);
    }
    CHECK(got);
    z_mutex_lock(z_loan_mut(in.lock)); /* the read task writes it again for later samples */
    CHECK_EQ_STR(in.key, "demo/pub");
    CHECK_EQ_MEM(in.payload, in.payload_len, "first", 5);
    CHECK_EQ_INT(in.encoding, 4);
    CHECK_EQ_STR(in.schema, "utf8");
    z_mutex_unlock(z_loan_mut(in.lock));

    /* publisher put with options: attachment, timestamp, another encoding */
    unsigned n = inbox_count(&in);
    z_publisher_put_options_t o;
    z_publisher_put_options_default(&o);
    z_owned_bytes_t att, p;
    z_bytes_copy_from_str(&att, "att");
    z_timestamp_t ts;
    CHECK_EQ_INT(z_timestamp_new(&ts, z_loan(b)), Z_OK);
    CHECK(ts.valid && z_timestamp_ntp64_time(&ts) != 0);
    CHECK_EQ_INT(z_timestamp_id(&ts).id[0], 0xb2);
    z_encoding_clone(&enc, z_encoding_application_json());
    o.attachment = z_move(att);
    o.timestamp = &ts;
    o.encoding = z_move(enc);
    z_bytes_from_static_str(&p, "second");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), &o), Z_OK);
    CHECK(!z_internal_check(att) && !z_internal_check(p));
    CHECK(wait_for(&in, n + 1, 5000));
    z_mutex_lock(z_loan_mut(in.lock));
    CHECK_EQ_MEM(in.payload, in.payload_len, "second", 6);
    CHECK_EQ_INT(in.attachment_len, 3);
    CHECK(in.timestamped);
    CHECK_EQ_INT(in.ts_id.id[0], 0xb2);
    CHECK_EQ_INT(in.encoding, 5);
    z_mutex_unlock(z_loan_mut(in.lock));

    /* z_put on a declared key expression, and its undeclaration */
    z_view_keyexpr_t dkey;
    z_view_keyexpr_from_str(&dkey, "demo/declared");
    z_owned_keyexpr_t declared;
    CHECK_EQ_INT(z_declare_keyexpr(z_loan(b), &declared, z_loan(dkey)), Z_OK);
    n = inbox_count(&in);
    z_put_options_t po;
    z_put_options_default(&po);
    po.congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    z_bytes_from_static_str(&p, "third");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(declared), z_move(p), &po), Z_OK);
    CHECK(wait_for(&in, n + 1, 5000));
    z_mutex_lock(z_loan_mut(in.lock));
    CHECK_EQ_STR(in.key, "demo/declared");
    CHECK_EQ_MEM(in.payload, in.payload_len, "third", 5);
    z_mutex_unlock(z_loan_mut(in.lock));

    /* a payload of several runs (appended payloads) goes out whole, attachment too */
    z_owned_bytes_writer_t w;
    z_bytes_writer_empty(&w);
    z_bytes_writer_write_all(z_loan_mut(w), (const uint8_t *)"fou", 3);
    append_static(z_loan_mut(w), "rth ");
    append_static(z_loan_mut(w), "runs");
    z_bytes_writer_finish(z_move(w), &p);
    z_bytes_writer_empty(&w);
    append_static(z_loan_mut(w), "at");
    z_bytes_writer_write_all(z_loan_mut(w), (const uint8_t *)"t", 1);
    z_bytes_writer_finish(z_move(w), &att);
    n = inbox_count(&in);
    po.attachment = z_move(att);
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(declared), z_move(p), &po), Z_OK);
    po.attachment = NULL;
    CHECK(wait_for(&in, n + 1, 5000));
    z_mutex_lock(z_loan_mut(in.lock));
    CHECK_EQ_MEM(in.payload, in.payload_len, "fourth runs", 11);
    CHECK_EQ_INT(in.attachment_len, 3);
    z_mutex_unlock(z_loan_mut(in.lock));
    /* and through the publisher, attachment too */
    z_bytes_writer_empty(&w);
    append_static(z_loan_mut(w), "fif");
    append_static(z_loan_mut(w), "th");
    z_bytes_writer_finish(z_move(w), &p);
    z_bytes_writer_empty(&w);
    z_bytes_writer_write_all(z_loan_mut(w), (const uint8_t *)"a", 1);
    append_static(z_loan_mut(w), "tta");
    z_bytes_writer_finish(z_move(w), &att);
    z_publisher_put_options_default(&o);
    o.attachment = z_move(att);
    n = inbox_count(&in);
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), &o), Z_OK);
    CHECK(!z_internal_check(att) && !z_internal_check(p));
    CHECK(wait_for(&in, n + 1, 5000));
    z_mutex_lock(z_loan_mut(in.lock));
    CHECK_EQ_STR(in.key, "demo/pub");
    CHECK_EQ_MEM(in.payload, in.payload_len, "fifth", 5);
    CHECK_EQ_INT(in.attachment_len, 4);
    z_mutex_unlock(z_loan_mut(in.lock));
    z_owned_keyexpr_t copy;
    z_keyexpr_clone(&copy, z_loan(declared));
    CHECK_EQ_INT(z_undeclare_keyexpr(z_loan(a), z_move(copy)), _Z_ERR_KEYEXPR_DECLARED_ON_ANOTHER_SESSION);
    CHECK(!z_internal_check(copy));
    z_keyexpr_from_str(&copy, "demo/plain");
    CHECK_EQ_INT(z_undeclare_keyexpr(z_loan(b), z_move(copy)), Z_EINVAL);
    CHECK_EQ_INT(z_undeclare_keyexpr(z_loan(b), z_move(declared)), Z_OK);
    CHECK(!z_internal_check(declared));

    /* deletes */
    n = inbox_count(&in);
    z_view_keyexpr_t del;
    z_view_keyexpr_from_str(&del, "demo/gone");
    z_delete_options_t dopts;
    z_delete_options_default(&dopts);
    dopts.congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    CHECK_EQ_INT(z_delete(z_loan(b), z_loan(del), &dopts), Z_OK);
    CHECK(wait_for(&in, n + 1, 5000));
    z_mutex_lock(z_loan_mut(in.lock));
    CHECK_EQ_STR(in.key, "demo/gone");
    CHECK_EQ_INT(in.deletes, 1);
    z_mutex_unlock(z_loan_mut(in.lock));
    CHECK_EQ_INT(z_publisher_delete(z_loan(pub), NULL), Z_OK);
    CHECK(wait_for(&in, n + 2, 5000));
    z_mutex_lock(z_loan_mut(in.lock));
    CHECK_EQ_INT(in.deletes, 2);
    z_mutex_unlock(z_loan_mut(in.lock));

    /* the background subscriber and the channel */
    z_view_keyexpr_from_str(&del, "demo/bg");
    z_bytes_from_static_str(&p, "bg");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), z_move(p), &po), Z_OK);
    CHECK(wait_for(&bg, 1, 5000));
    z_view_keyexpr_from_str(&del, "demo/chan/x");
    z_bytes_from_static_str(&p, "queued");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), z_move(p), &po), Z_OK);
    z_owned_sample_t smp;
    CHECK_EQ_INT(z_recv(z_loan(handler), &smp), Z_OK);
    z_owned_string_t text;
    z_bytes_to_string(z_sample_payload(z_loan(smp)), &text);
    CHECK_EQ_STR(z_string_data(z_loan(text)), "queued");
    z_drop(z_move(text));
    z_drop(z_move(smp));

    /* local delivery happens on the publishing thread, before z_put returns */
    inbox_t local;
    inbox_init(&local);
    z_view_keyexpr_t lkey;
    z_view_keyexpr_from_str(&lkey, "local/**");
    z_owned_subscriber_t lsub;
    z_closure(&cb, on_sample, on_drop, &local);
    CHECK_EQ_INT(z_declare_subscriber(z_loan(b), &lsub, z_loan(lkey), z_move(cb), NULL), Z_OK);
    z_view_keyexpr_from_str(&del, "local/x");
    z_bytes_from_static_str(&p, "here");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), z_move(p), NULL), Z_OK);
    CHECK_EQ_INT(inbox_count(&local), 1);
    po.allowed_destination = Z_LOCALITY_REMOTE;
    z_bytes_from_static_str(&p, "away");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), z_move(p), &po), Z_OK);
    CHECK_EQ_INT(inbox_count(&local), 1);
    po.allowed_destination = Z_LOCALITY_ANY;
    z_drop(z_move(lsub));
    CHECK_EQ_INT(atomic_load(&local.drops), 1);
    z_bytes_from_static_str(&p, "after");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), z_move(p), NULL), Z_OK);
    CHECK_EQ_INT(inbox_count(&local), 1);
    inbox_fini(&local);

    /* argument checks at the boundary */
    z_bytes_from_static_str(&p, "x");
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(empty), z_move(p), NULL), Z_EINVAL);
    CHECK(!z_internal_check(p)); /* taken even on failure */
    z_bytes_from_static_str(&p, "x");
    po.priority = (z_priority_t)0;
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), z_move(p), &po), Z_EINVAL);
    po.priority = Z_PRIORITY_DEFAULT;
    CHECK_EQ_INT(z_put(z_loan(b), z_loan(del), NULL, NULL), Z_EINVAL);

    /* batching */
    CHECK_EQ_INT(zp_batch_start(z_loan(b)), Z_OK);
    n = inbox_count(&in);
    for (int i = 0; i < 5; i++) {
        z_bytes_from_static_str(&p, "batched");
        CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
    }
    CHECK_EQ_INT(zp_batch_flush(z_loan(b)), Z_OK);
    CHECK(wait_for(&in, n + 5, 5000));
    CHECK_EQ_INT(zp_batch_stop(z_loan(b)), Z_OK);

    /* undeclaring runs the closure's drop once; a session closed before its entities */
    CHECK_EQ_INT(z_undeclare_subscriber(z_move(sub)), Z_OK);
    CHECK_EQ_INT(atomic_load(&in.drops), 1);
    CHECK(!z_internal_check(sub));
    CHECK(zp_read_task_is_running(z_loan(b)));
    CHECK_EQ_INT(z_close(z_loan_mut(b), NULL), Z_OK);
    CHECK(z_session_is_closed(z_loan(b)));
    CHECK(!zp_read_task_is_running(z_loan(b)));
    CHECK_EQ_INT(z_close(z_loan_mut(b), NULL), Z_OK);
    z_bytes_from_static_str(&p, "late");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_ESESSION_CLOSED);
    CHECK_EQ_INT(z_timestamp_new(&ts, z_loan(b)), Z_ESESSION_CLOSED);
    z_drop(z_move(b));
    CHECK_EQ_INT(z_undeclare_publisher(z_move(pub)), Z_OK);

    z_drop(z_move(a)); /* ends the background and channel subscribers */
    CHECK_EQ_INT(atomic_load(&bg.drops), 1);
    CHECK_EQ_INT(z_recv(z_loan(handler), &smp), Z_CHANNEL_DISCONNECTED);
    z_drop(z_move(chsub));
    z_drop(z_move(handler));
    CHECK_EQ_INT(atomic_load(&in.drops), 1);
    inbox_fini(&in);
    inbox_fini(&bg);
    CHECK_EQ_INT(atomic_load(&allocs) - atomic_load(&frees), before);
}

/* ---- a publisher's puts as its targets change ------------------------------------------------------------- */

static bool has_payload(const inbox_t *in, const void *text)
{
    size_t len = strlen(text);
    return in->payload_len == len && memcmp(in->payload, text, len) == 0;
}

/* Waits until the last sample in saw has payload text, at most ms; true if it did. */
static bool wait_payload(inbox_t *in, const char *text, unsigned long ms)
{
    return inbox_wait(in, has_payload, text, ms);
}

/* pub puts text until in (and also, unless NULL) has seen it, at most 300 times 10 ms apart: a
 * subscriber's declaration reaches the publisher's session some time after it is made, and a peer
 * whose declarations are not all in yet gets every put meanwhile, so a put seen there says nothing
 * of the next one. */
static bool put_until(const z_owned_publisher_t *pub, inbox_t *in, inbox_t *also, const char *text)
{
    for (int i = 0; i < 300; i++) {
        z_owned_bytes_t p;
        z_bytes_copy_from_str(&p, text);
        CHECK_EQ_INT(z_publisher_put(z_loan(*pub), z_move(p), NULL), Z_OK);
        if (wait_payload(in, text, 10) && (also == NULL || wait_payload(also, text, 10))) {
            return true;
        }
    }
    return false;
}

static void on_matching(const z_matching_status_t *status, void *ctx)
{
    inbox_t *in = ctx;
    z_mutex_lock(z_loan_mut(in->lock));
    in->matching = status->matching;
    z_condvar_signal(z_loan_mut(in->cond));
    z_mutex_unlock(z_loan_mut(in->lock));
}

static bool has_matching(const inbox_t *in, const void *unused)
{
    (void)unused;
    return in->matching;
}

/* Waits until the publisher whose matching listener writes in matches a subscriber, at most ms. */
static bool wait_matching(inbox_t *in, unsigned long ms) { return inbox_wait(in, has_matching, NULL, ms); }

/*
 * A publisher keeps its puts without options encoded up to the payload: subscribers declared
 * after it, on a peer there already, on a peer that comes later and in its own session, get its
 * puts; a put with options between plain ones has its own encoding and attachment, and the plain
 * ones after it have none of them.
 */
static void test_publisher_late(void)
{
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", free_port());
    z_owned_session_t a, b, c;
    CHECK_EQ_INT(open_session(&b, "peer", listen, NULL, NULL), Z_OK);
    CHECK_EQ_INT(open_session(&a, "peer", NULL, listen, NULL), Z_OK);
    z_view_keyexpr_t key;
    z_view_keyexpr_from_str(&key, "late/x");
    z_publisher_options_t popts;
    z_publisher_options_default(&popts);
    popts.congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    z_owned_publisher_t pub;
    CHECK_EQ_INT(z_declare_publisher(z_loan(b), &pub, z_loan(key), &popts), Z_OK);
    z_owned_bytes_t p;
    for (int i = 0; i < 20; i++) { /* to nobody yet */
        z_bytes_copy_from_str(&p, "unheard");
        CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
    }

    inbox_t in_a, in_c;
    inbox_init(&in_a);
    inbox_init(&in_c);
    z_view_keyexpr_t all;
    z_view_keyexpr_from_str(&all, "late/**");
    z_owned_closure_matching_status_t mcb;
    z_closure(&mcb, on_matching, NULL, &in_a);
    CHECK_EQ_INT(z_publisher_declare_background_matching_listener(z_loan(pub), z_move(mcb)), Z_OK);
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_sample, on_drop, &in_a);
    z_owned_subscriber_t sub_a;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(a), &sub_a, z_loan(all), z_move(cb), NULL), Z_OK);
    /* from here the publisher's session knows the subscriber: every put reaches it */
    CHECK(wait_matching(&in_a, 5000));
    CHECK(put_until(&pub, &in_a, NULL, "first"));

    /* a put with options among plain ones, each sent once the one before arrived */
    z_publisher_put_options_t o;
    z_publisher_put_options_default(&o);
    z_owned_bytes_t att;
    z_bytes_copy_from_str(&att, "att");
    z_owned_encoding_t enc;
    z_encoding_clone(&enc, z_encoding_application_json());
    o.attachment = z_move(att);
    o.encoding = z_move(enc);
    z_bytes_copy_from_str(&p, "optioned");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), &o), Z_OK);
    CHECK(wait_payload(&in_a, "optioned", 5000));
    z_mutex_lock(z_loan_mut(in_a.lock)); /* its read task writes the inbox again for later puts */
    CHECK_EQ_INT(in_a.attachment_len, 3);
    CHECK_EQ_INT(in_a.encoding, 5);
    z_mutex_unlock(z_loan_mut(in_a.lock));
    z_publisher_put_options_default(&o); /* all null: a put without options */
    z_bytes_copy_from_str(&p, "plain again");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), &o), Z_OK);
    CHECK(wait_payload(&in_a, "plain again", 5000));
    z_mutex_lock(z_loan_mut(in_a.lock));
    CHECK_EQ_STR(in_a.key, "late/x");
    CHECK_EQ_INT(in_a.attachment_len, 0);
    CHECK_EQ_INT(in_a.encoding, 0);
    z_mutex_unlock(z_loan_mut(in_a.lock));

    /* a peer that comes after the publisher, and both peers after it */
    CHECK_EQ_INT(open_session(&c, "peer", NULL, listen, NULL), Z_OK);
    z_closure(&cb, on_sample, on_drop, &in_c);
    z_owned_subscriber_t sub_c;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(c), &sub_c, z_loan(all), z_move(cb), NULL), Z_OK);
    CHECK(put_until(&pub, &in_a, &in_c, "to both"));

#if Z_FEATURE_LOCAL_SUBSCRIBER
    /* a subscriber of the publisher's own session, declared after it: delivered before the put
     * returns, and no more once undeclared */
    inbox_t local;
    inbox_init(&local);
    z_closure(&cb, on_sample, on_drop, &local);
    z_owned_subscriber_t lsub;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(b), &lsub, z_loan(all), z_move(cb), NULL), Z_OK);
    z_bytes_copy_from_str(&p, "here too");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
    CHECK_EQ_INT(inbox_count(&local), 1);
    CHECK_EQ_MEM(local.payload, local.payload_len, "here too", 8);
    CHECK(wait_payload(&in_a, "here too", 5000));
    CHECK_EQ_INT(z_undeclare_subscriber(z_move(lsub)), Z_OK);
    z_bytes_copy_from_str(&p, "away");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
    CHECK_EQ_INT(inbox_count(&local), 1);
    CHECK(wait_payload(&in_a, "away", 5000));
    inbox_fini(&local);
#endif

    z_drop(z_move(sub_c));
    z_drop(z_move(sub_a));
    z_drop(z_move(pub));
    z_drop(z_move(c));
    z_drop(z_move(a));
    z_drop(z_move(b));
    inbox_fini(&in_c);
    inbox_fini(&in_a);
}

/* ---- no allocation per sample ------------------------------------------------------------------------------ */

static atomic_uint received;

static void on_count(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    if (z_bytes_len(z_sample_payload(sample)) == 32) {
        atomic_fetch_add(&received, 1u);
    }
}

static void free_buffer(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

static bool wait_received(unsigned n, uint64_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    while (atomic_load(&received) < n && zm_port_clock_ms() < deadline) {
        zm_port_sleep_ms(1);
    }
    return atomic_load(&received) >= n;
}

static void test_zero_alloc(void)
{
    long before = atomic_load(&allocs) - atomic_load(&frees);
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", free_port());
    z_owned_session_t a, b;
    CHECK_EQ_INT(open_session(&a, "peer", listen, NULL, NULL), Z_OK);
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_count);
    z_view_keyexpr_t key;
    z_view_keyexpr_from_str(&key, "thr/*");
    CHECK_EQ_INT(z_declare_background_subscriber(z_loan(a), z_loan(key), z_move(cb), NULL), Z_OK);
    CHECK_EQ_INT(open_session(&b, "peer", NULL, listen, NULL), Z_OK);

    z_view_keyexpr_from_str(&key, "thr/x");
    z_publisher_options_t popts;
    z_publisher_options_default(&popts);
    popts.congestion_control = Z_CONGESTION_CONTROL_BLOCK;
    z_owned_publisher_t pub;
    CHECK_EQ_INT(z_declare_publisher(z_loan(b), &pub, z_loan(key), &popts), Z_OK);
    z_view_keyexpr_t other;
    z_view_keyexpr_from_str(&other, "thr/y");
    z_put_options_t po;
    z_put_options_default(&po);
    po.congestion_control = Z_CONGESTION_CONTROL_BLOCK;

    static uint8_t stat[32];
    uint8_t *heap = malloc(32);
    memset(heap, 7, 32);
    z_owned_bytes_t shared;
    CHECK_EQ_INT(z_bytes_from_buf(&shared, heap, 32, free_buffer, NULL), Z_OK);

    /* warm-up: until samples flow, then a few hundred more */
    atomic_store(&received, 0);
    for (int i = 0; i < 500 && atomic_load(&received) == 0; i++) {
        z_owned_bytes_t p;
        z_bytes_from_static_buf(&p, stat, sizeof(stat));
        CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
        zm_port_sleep_ms(5);
    }
    CHECK(atomic_load(&received) > 0);
    for (int i = 0; i < 200; i++) {
        z_owned_bytes_t p;
        z_bytes_clone(&p, z_loan(shared));
        CHECK_EQ_INT(z_put(z_loan(b), z_loan(other), z_move(p), &po), Z_OK);
    }
    unsigned base = atomic_load(&received);
    CHECK(wait_received(base, 5000));

    long a0 = atomic_load(&allocs);
    unsigned start = atomic_load(&received);
    int failed = 0;
    for (int i = 0; i < 1000; i++) {
        z_owned_bytes_t p;
        if (i % 2 == 0) {
            z_bytes_from_static_buf(&p, stat, sizeof(stat));
            failed += z_publisher_put(z_loan(pub), z_move(p), NULL) != Z_OK;
        } else {
            z_bytes_clone(&p, z_loan(shared));
            failed += z_put(z_loan(b), z_loan(other), z_move(p), &po) != Z_OK;
        }
    }
    CHECK_EQ_INT(failed, 0);
    bool all = wait_received(start + 1000, 10000);
    CHECK_CTX(all, "received %u of 1000", atomic_load(&received) - start);
    long used = atomic_load(&allocs) - a0;
    CHECK_CTX(used == 0, "%ld allocations for 1000 puts and 1000 received samples", used);

    z_drop(z_move(pub));
    z_drop(z_move(b));
    z_drop(z_move(a));
    z_drop(z_move(shared)); /* the last reference: frees heap */
    CHECK_EQ_INT(atomic_load(&allocs) - atomic_load(&frees), before);
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_open_errors();
#ifdef Z_FEATURE_UNSTABLE_API
    test_open_retries();
#endif
    test_pubsub();
    test_publisher_late();
    test_zero_alloc();
    CHECK_EQ_INT(atomic_load(&allocs) - atomic_load(&frees), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
