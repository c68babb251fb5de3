/*
 * The advanced publisher (zmote/api/advanced.h) in one process: its cache answers a local get on
 * its queryable's key as Rust's advanced subscribers ask it (`_max`, `_sn` ranges, consolidation
 * none), with the samples in the order they were put, their sequence numbers and a deletion;
 * bad options are refused; what it holds is freed when it goes. Interop with Rust's advanced
 * subscriber is tests/interop/test_advanced.py.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/alloc.h"
#include "zenoh-pico.h"
#include "zmote/port.h"

static atomic_long live_blocks;

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    atomic_fetch_add(&live_blocks, 1);
    return malloc(size);
}

static void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr != NULL) {
        atomic_fetch_sub(&live_blocks, 1);
    }
    free(ptr);
}

static uint16_t free_port(void)
{
    zm_socket_t sock;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&sock, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&sock, &port), Z_OK);
    zm_port_socket_close(&sock);
    return port;
}

/* What a get on the cache gave: "kind payload sn" per reply, in order, separated by '|'. */
static void history(const z_loaned_session_t *s, const char *selector_params, char *out, size_t cap)
{
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "adv/k/@adv/pub/**");
    z_owned_closure_reply_t cb;
    z_owned_fifo_handler_reply_t replies;
    CHECK_EQ_INT(z_fifo_channel_reply_new(&cb, &replies, 16), Z_OK);
    z_get_options_t o;
    z_get_options_default(&o);
    o.consolidation.mode = Z_CONSOLIDATION_MODE_NONE;
    o.accept_replies = Z_REPLY_KEYEXPR_ANY; /* the cache replies on the publisher's key, as Rust asks */
    o.timeout_ms = 5000;
    CHECK_EQ_INT(z_get(s, z_loan(ke), selector_params, z_move(cb), &o), Z_OK);
    out[0] = '\0';
    z_owned_reply_t r;
    while (z_recv(z_loan(replies), &r) == Z_OK) {
        const z_loaned_sample_t *sample = z_reply_ok(z_loan(r));
        CHECK(sample != NULL);
        if (sample != NULL) {
            z_owned_string_t text;
            z_bytes_to_string(z_sample_payload(sample), &text);
            const z_source_info_t *si = z_sample_source_info(sample);
            size_t n = strlen(out);
            snprintf(out + n, cap - n, "%s%s %.*s %u", n > 0 ? "|" : "",
                     z_sample_kind(sample) == Z_SAMPLE_KIND_PUT ? "put" : "del", (int)z_string_len(z_loan(text)),
                     z_string_data(z_loan(text)), si != NULL ? (unsigned)z_source_info_sn(si) : 9999u);
            z_drop(z_move(text));
            CHECK(z_sample_timestamp(sample) != NULL);
        }
        z_drop(z_move(r));
    }
    z_drop(z_move(replies));
}

static void put(const ze_loaned_advanced_publisher_t *pub, const char *text)
{
    z_owned_bytes_t payload;
    z_bytes_copy_from_str(&payload, text);
    CHECK_EQ_INT(ze_advanced_publisher_put(pub, z_move(payload), NULL), Z_OK);
}

static void test_cache(void)
{
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", free_port());
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer");
    zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MULTICAST_SCOUTING_KEY, "false");
    z_owned_session_t s;
    CHECK_EQ_INT(z_open(&s, z_move(c), NULL), Z_OK);

    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "adv/k");
    ze_owned_advanced_publisher_t pub;
    ze_advanced_publisher_options_t o;
    ze_advanced_publisher_options_default(&o);
    o.cache.is_enabled = true;
    o.cache.max_samples = 0;
    CHECK_EQ_INT(ze_declare_advanced_publisher(z_loan(s), &pub, z_loan(ke), &o), Z_EINVAL);
    CHECK(!z_internal_check(pub));
    o.cache.max_samples = 3;
    o.sample_miss_detection.is_enabled = true;
    o.sample_miss_detection.heartbeat_mode = ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_PERIODIC;
    CHECK_EQ_INT(ze_declare_advanced_publisher(z_loan(s), &pub, z_loan(ke), &o), Z_EINVAL); /* period 0 */
    CHECK_EQ_INT(ze_declare_advanced_publisher(NULL, &pub, z_loan(ke), NULL), Z_EINVAL);
    o.sample_miss_detection.heartbeat_mode = ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_NONE;
    o.publisher_detection = true;
    CHECK_EQ_INT(ze_declare_advanced_publisher(z_loan(s), &pub, z_loan(ke), &o), Z_OK);
    CHECK(z_keyexpr_equals(ze_advanced_publisher_keyexpr(z_loan(pub)), z_loan(ke)));

    char got[512];
    history(z_loan(s), "", got, sizeof(got));
    CHECK_EQ_STR(got, "");
    for (int i = 0; i < 5; i++) {
        char text[8];
        snprintf(text, sizeof(text), "s%d", i);
        put(z_loan(pub), text);
    }
    /* the cache holds the last 3, oldest first */
    history(z_loan(s), "", got, sizeof(got));
    CHECK_EQ_STR(got, "put s2 2|put s3 3|put s4 4");
    history(z_loan(s), "_max=2", got, sizeof(got));
    CHECK_EQ_STR(got, "put s3 3|put s4 4");
    history(z_loan(s), "_sn=1..3", got, sizeof(got));
    CHECK_EQ_STR(got, "put s2 2|put s3 3");
    history(z_loan(s), "_sn=4", got, sizeof(got));
    CHECK_EQ_STR(got, "put s4 4");
    history(z_loan(s), "_sn=3..", got, sizeof(got));
    CHECK_EQ_STR(got, "put s3 3|put s4 4");
    history(z_loan(s), "_sn=..2;_max=1", got, sizeof(got));
    CHECK_EQ_STR(got, "put s2 2");
    CHECK_EQ_INT(ze_advanced_publisher_delete(z_loan(pub), NULL), Z_OK);
    history(z_loan(s), "", got, sizeof(got));
    CHECK_EQ_STR(got, "put s3 3|put s4 4|del  5");

    CHECK_EQ_INT(ze_undeclare_advanced_publisher(z_move(pub)), Z_OK);
    CHECK(!z_internal_check(pub));
    CHECK_EQ_INT(ze_undeclare_advanced_publisher(z_move(pub)), Z_ENULL);
    z_drop(z_move(s)); /* main checks that nothing is left: the cache, its samples, its parts */
}

/* A peer session listening on a free port, alone. */
static void open_peer(z_owned_session_t *s)
{
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", free_port());
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer");
    zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MULTICAST_SCOUTING_KEY, "false");
    CHECK_EQ_INT(z_open(s, z_move(c), NULL), Z_OK);
}

/* The cache's `_time`: only the samples within the range, its bounds `now(<offset>)` as Rust writes them. */
static void test_time(void)
{
    z_owned_session_t s;
    open_peer(&s);
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "adv/k");
    ze_owned_advanced_publisher_t pub;
    ze_advanced_publisher_options_t o;
    ze_advanced_publisher_options_default(&o);
    o.cache.is_enabled = true;
    o.cache.max_samples = 4;
    o.sample_miss_detection.is_enabled = true;
    CHECK_EQ_INT(ze_declare_advanced_publisher(z_loan(s), &pub, z_loan(ke), &o), Z_OK);
    put(z_loan(pub), "old");
    z_sleep_ms(3000); /* the time the range tells apart, well beyond the query's own delay */
    put(z_loan(pub), "new");
    char got[512];
    history(z_loan(s), "_time=[now(-1.5s)..]", got, sizeof(got));
    CHECK_EQ_STR(got, "put new 1");
    history(z_loan(s), "_max=5;_time=[now(-1500ms)..]", got, sizeof(got));
    CHECK_EQ_STR(got, "put new 1");
    history(z_loan(s), "_time=[..now(-1.5s)]", got, sizeof(got));
    CHECK_EQ_STR(got, "put old 0");
    history(z_loan(s), "_time=[now(-1m)..now()]", got, sizeof(got));
    CHECK_EQ_STR(got, "put old 0|put new 1");
    history(z_loan(s), "_time=[now(1s)..]", got, sizeof(got));
    CHECK_EQ_STR(got, "");
    history(z_loan(s), "_time=[2020-01-01T00:00:00Z..]", got, sizeof(got)); /* unread: no filter */
    CHECK_EQ_STR(got, "put old 0|put new 1");
    history(z_loan(s), "_time=now(", got, sizeof(got));
    CHECK_EQ_STR(got, "put old 0|put new 1");
    CHECK_EQ_INT(ze_undeclare_advanced_publisher(z_move(pub)), Z_OK);
    z_drop(z_move(s));
}

#if Z_FEATURE_ADVANCED_SUBSCRIPTION == 1
static char asked[256];

static void on_query(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
    z_view_string_t params;
    z_query_parameters(query, &params);
    snprintf(asked, sizeof(asked), "%.*s", (int)z_string_len(z_loan(params)), z_string_data(z_loan(params)));
}

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
}

/* An advanced subscriber's history query, as Rust writes it: `_max`, then `_time` of its age in seconds. */
static void test_history_query(void)
{
    z_owned_session_t s;
    open_peer(&s);
    z_view_keyexpr_t qk, ke;
    z_view_keyexpr_from_str(&qk, "adv/h/@adv/**");
    z_view_keyexpr_from_str(&ke, "adv/h");
    z_owned_closure_query_t qcb;
    z_closure(&qcb, on_query, NULL, NULL);
    z_owned_queryable_t q;
    CHECK_EQ_INT(z_declare_queryable(z_loan(s), &q, z_loan(qk), z_move(qcb), NULL), Z_OK);
    static const struct {
        size_t max;
        uint64_t age_ms;
        const char *want;
    } cases[] = {{5, 1500, "_max=5;_time=[now(-1.5s)..]"}, {0, 20000, "_time=[now(-20s)..]"},
                 {7, 0, "_max=7"}, {0, 1, "_time=[now(-0.001s)..]"}, {0, 0, ""}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ze_advanced_subscriber_options_t o;
        ze_advanced_subscriber_options_default(&o);
        ze_advanced_subscriber_history_options_default(&o.history);
        o.history.max_samples = cases[i].max;
        o.history.max_age_ms = cases[i].age_ms;
        asked[0] = '\0';
        z_owned_closure_sample_t cb;
        z_closure(&cb, on_sample, NULL, NULL);
        ze_owned_advanced_subscriber_t sub;
        CHECK_EQ_INT(ze_declare_advanced_subscriber(z_loan(s), &sub, z_loan(ke), z_move(cb), &o), Z_OK);
        /* the local queryable answers within the declaration; Rust reads _anyke as a parameter too */
        size_t n = strlen(cases[i].want);
        CHECK(strncmp(asked, cases[i].want, n) == 0);
        CHECK_EQ_STR(asked + n, n > 0 ? ";_anyke" : "_anyke");
        CHECK(z_keyexpr_equals(ze_advanced_subscriber_keyexpr(z_loan(sub)), z_loan(ke)));
        CHECK_EQ_INT(ze_undeclare_advanced_subscriber(z_move(sub)), Z_OK);
    }
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_sample, NULL, NULL);
    CHECK_EQ_INT(ze_declare_advanced_subscriber(z_loan(s), NULL, z_loan(ke), z_move(cb), NULL), Z_EINVAL);
    z_drop(z_move(q));
    z_drop(z_move(s));
}
#endif

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_cache();
    test_time();
#if Z_FEATURE_ADVANCED_SUBSCRIPTION == 1
    test_history_query();
#endif
    CHECK_EQ_INT(atomic_load(&live_blocks), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
