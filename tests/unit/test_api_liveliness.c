/*
 * The liveliness API over a real session: a peer-mode session listening on loopback, a fake
 * peer (zmote's own transport, see fake_peer.h) that declares tokens, answers interests or stays
 * silent. Checked: tokens declared and undeclared through their owned objects, liveliness
 * subscribers (history, drop, background), liveliness gets answered or cancelled, and misuse of
 * every function (NULL and moved-from objects, invalid keys). Every wait is bounded.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "check.h"
#include "fake_peer.h"
#include "zenoh-pico.h"

#define EVENTS_MAX 32

/* What a callback heard: "put KEY", "delete KEY" or "reply KEY", in order; dropped once it ended. */
typedef struct {
    z_owned_mutex_t lock;
    unsigned n;
    char line[EVENTS_MAX][64];
    atomic_int dropped;
} events_t;

static void events_init(events_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    z_mutex_init(&ev->lock);
}

static void events_add(events_t *ev, const char *what, const z_loaned_keyexpr_t *key)
{
    z_view_string_t k;
    z_keyexpr_as_view_string(key, &k);
    z_mutex_lock(z_loan_mut(ev->lock));
    if (ev->n < EVENTS_MAX) {
        snprintf(ev->line[ev->n], sizeof(ev->line[0]), "%s %.*s", what, (int)z_string_len(z_loan(k)),
                 z_string_data(z_loan(k)));
        ev->n++;
    }
    z_mutex_unlock(z_loan_mut(ev->lock));
}

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    events_add(ctx, z_sample_kind(sample) == Z_SAMPLE_KIND_PUT ? "put" : "delete", z_sample_keyexpr(sample));
}

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    if (z_reply_is_ok(reply)) {
        events_add(ctx, "reply", z_sample_keyexpr(z_reply_ok(reply)));
    }
}

static void on_drop(void *ctx)
{
    events_t *ev = ctx;
    atomic_fetch_add(&ev->dropped, 1);
}

/* Waits up to ms for event i; true when it reads want. */
static bool event_is(events_t *ev, unsigned i, const char *want, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    for (;;) {
        z_mutex_lock(z_loan_mut(ev->lock));
        bool there = ev->n > i;
        bool same = there && strcmp(ev->line[i], want) == 0;
        if (there && !same) {
            fprintf(stderr, "    event %u: '%s', wanted '%s'\n", i, ev->line[i], want);
        }
        z_mutex_unlock(z_loan_mut(ev->lock));
        if (there || zm_port_clock_ms() > deadline) {
            return same;
        }
        z_sleep_ms(2); /* the callbacks run on the session's read task: polled, bounded */
    }
}

static unsigned events_count(events_t *ev)
{
    z_mutex_lock(z_loan_mut(ev->lock));
    unsigned n = ev->n;
    z_mutex_unlock(z_loan_mut(ev->lock));
    return n;
}

static bool wait_dropped(events_t *ev, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    while (atomic_load(&ev->dropped) == 0 && zm_port_clock_ms() <= deadline) {
        z_sleep_ms(2);
    }
    return atomic_load(&ev->dropped) == 1;
}

/* ---- the session under test, and its fake peer ---------------------------------------------------- */

static bool open_listening(z_owned_session_t *s, uint16_t *port)
{
    zm_socket_t probe;
    if (zm_port_tcp_listen(&probe, "127.0.0.1", 0) != Z_OK) {
        return false;
    }
    z_result_t rc = zm_port_socket_local_port(&probe, port);
    zm_port_socket_close(&probe);
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", *port);
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer");
    zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    return rc == Z_OK && z_open(s, z_move(c), NULL) == Z_OK;
}

/* The session took f in: its declarations to f ended with the D_FINAL of the initial interest. */
static bool welcomed(fake_t *f)
{
    fake_msg_t m;
    for (unsigned from = 0;;) {
        int at = fake_wait_msg(f, from, ZM_MID_N_DECLARE, ZM_DECL_FINAL, &m, 3000);
        if (at < 0 || (m.has_iid && m.iid == 0)) {
            return at >= 0;
        }
        from = (unsigned)at + 1;
    }
}

typedef struct {
    z_owned_session_t s;
    fake_t f;
    bool up;
} rig_t;

static bool rig_open(rig_t *r)
{
    uint16_t port = 0;
    r->up = open_listening(&r->s, &port) && fake_open(&r->f, port, 10000) && welcomed(&r->f);
    CHECK(r->up);
    return r->up;
}

static void rig_close(rig_t *r)
{
    fake_close(&r->f);
    z_drop(z_move(r->s));
}

static z_result_t fake_token(fake_t *f, uint32_t id, const char *key, bool undeclare)
{
    return fake_declare_ex(f, undeclare ? ZM_UNDECL_TOKEN : ZM_DECL_TOKEN, id, key, undeclare ? 0 : strlen(key),
                           false, 0, true);
}

/* ---- tokens ---------------------------------------------------------------------------------------- */

static void test_tokens(void)
{
    rig_t r;
    if (!rig_open(&r)) {
        return;
    }
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "api/t");
    z_owned_liveliness_token_t tok;
    unsigned mark = fake_msgs(&r.f);
    z_liveliness_token_options_t opts;
    CHECK_EQ_INT(z_liveliness_token_options_default(&opts), Z_OK);
    CHECK_EQ_INT(z_liveliness_declare_token(z_loan(r.s), &tok, z_loan(ke), &opts), Z_OK);
    CHECK(z_internal_check(tok));
    fake_msg_t m;
    CHECK(fake_wait_msg(&r.f, mark, ZM_MID_N_DECLARE, ZM_DECL_TOKEN, &m, 3000) >= 0);
    CHECK_EQ_STR(m.key, "api/t");
    uint32_t id = m.id;

    mark = fake_msgs(&r.f);
    CHECK_EQ_INT(z_liveliness_undeclare_token(z_move(tok)), Z_OK);
    CHECK(!z_internal_check(tok));
    CHECK(fake_wait_msg(&r.f, mark, ZM_MID_N_DECLARE, ZM_UNDECL_TOKEN, &m, 3000) >= 0);
    CHECK_EQ_INT(m.id, id);
    CHECK_EQ_INT(z_liveliness_undeclare_token(z_move(tok)), Z_ENULL); /* moved from */
    z_drop(z_move(tok));                                               /* a null token: nothing */

    /* dropped undeclares; a token outliving its session drops quietly */
    CHECK_EQ_INT(z_liveliness_declare_token(z_loan(r.s), &tok, z_loan(ke), NULL), Z_OK);
    mark = fake_msgs(&r.f);
    z_drop(z_move(tok));
    CHECK(fake_wait_msg(&r.f, mark, ZM_MID_N_DECLARE, ZM_UNDECL_TOKEN, &m, 3000) >= 0);
    z_owned_liveliness_token_t late;
    CHECK_EQ_INT(z_liveliness_declare_token(z_loan(r.s), &late, z_loan(ke), NULL), Z_OK);

    /* misuse */
    CHECK_EQ_INT(z_liveliness_declare_token(z_loan(r.s), NULL, z_loan(ke), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_liveliness_declare_token(z_loan(r.s), &tok, NULL, NULL), Z_EINVAL);
    CHECK(!z_internal_check(tok));
    CHECK_EQ_INT(z_liveliness_declare_token(NULL, &tok, z_loan(ke), NULL), Z_ENULL);
    CHECK_EQ_INT(z_liveliness_undeclare_token(NULL), Z_ENULL);
    CHECK_EQ_INT(z_liveliness_token_options_default(NULL), Z_EINVAL);
    z_owned_liveliness_token_t taken;
    z_take(&taken, z_move(late));
    CHECK(z_internal_check(taken) && !z_internal_check(late));

    rig_close(&r);
    CHECK_EQ_INT(z_liveliness_undeclare_token(z_move(taken)), Z_OK); /* its session is gone */
    CHECK(!z_internal_check(taken));
}

/* ---- liveliness subscribers ------------------------------------------------------------------------ */

static void test_subscribers(void)
{
    rig_t r;
    if (!rig_open(&r)) {
        return;
    }
    events_t bg, hist, none;
    events_init(&bg);
    events_init(&hist);
    events_init(&none);
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "api/s/**");
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_sample, on_drop, &bg);
    CHECK_EQ_INT(z_liveliness_declare_background_subscriber(z_loan(r.s), z_loan(ke), z_move(cb), NULL), Z_OK);
    CHECK_EQ_INT(fake_token(&r.f, 1, "api/s/1", false), Z_OK);
    CHECK(event_is(&bg, 0, "put api/s/1", 3000));

    z_liveliness_subscriber_options_t opts;
    CHECK_EQ_INT(z_liveliness_subscriber_options_default(&opts), Z_OK);
    CHECK(!opts.history);
    opts.history = true;
    z_owned_subscriber_t hs, ns;
    z_closure(&cb, on_sample, on_drop, &hist);
    CHECK_EQ_INT(z_liveliness_declare_subscriber(z_loan(r.s), &hs, z_loan(ke), z_move(cb), &opts), Z_OK);
    CHECK(event_is(&hist, 0, "put api/s/1", 0)); /* the history, before the declaration returned */
    z_closure(&cb, on_sample, on_drop, &none);
    CHECK_EQ_INT(z_liveliness_declare_subscriber(z_loan(r.s), &ns, z_loan(ke), z_move(cb), NULL), Z_OK);
    z_view_string_t sk;
    z_keyexpr_as_view_string(z_subscriber_keyexpr(z_loan(ns)), &sk);
    CHECK_EQ_MEM(z_string_data(z_loan(sk)), z_string_len(z_loan(sk)), "api/s/**", 8);

    CHECK_EQ_INT(fake_token(&r.f, 1, NULL, true), Z_OK);
    CHECK(event_is(&none, 0, "delete api/s/1", 3000));
    CHECK(event_is(&hist, 1, "delete api/s/1", 3000));
    CHECK(event_is(&bg, 1, "delete api/s/1", 3000));

    /* undeclared: its drop ran and it hears no more */
    CHECK_EQ_INT(z_undeclare_subscriber(z_move(hs)), Z_OK);
    CHECK_EQ_INT(atomic_load(&hist.dropped), 1);
    z_drop(z_move(ns));
    CHECK_EQ_INT(atomic_load(&none.dropped), 1);
    CHECK_EQ_INT(fake_token(&r.f, 2, "api/s/2", false), Z_OK);
    CHECK(event_is(&bg, 2, "put api/s/2", 3000));
    CHECK_EQ_INT(events_count(&hist), 2);
    CHECK_EQ_INT(events_count(&none), 1);

    /* misuse: the callback is taken (dropped) on every path */
    events_t bad;
    events_init(&bad);
    z_closure(&cb, on_sample, on_drop, &bad);
    CHECK_EQ_INT(z_liveliness_declare_subscriber(z_loan(r.s), NULL, z_loan(ke), z_move(cb), NULL), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&bad.dropped), 1);
    z_closure(&cb, on_sample, on_drop, &bad);
    CHECK_EQ_INT(z_liveliness_declare_subscriber(z_loan(r.s), &hs, NULL, z_move(cb), NULL), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&bad.dropped), 2);
    CHECK(!z_internal_check(hs));
    CHECK_EQ_INT(z_liveliness_declare_subscriber(z_loan(r.s), &hs, z_loan(ke), NULL, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_liveliness_subscriber_options_default(NULL), Z_EINVAL);

    rig_close(&r);
    CHECK_EQ_INT(atomic_load(&bg.dropped), 1); /* the session's end ends its background subscriber */
    z_drop(z_move(bg.lock));
    z_drop(z_move(hist.lock));
    z_drop(z_move(none.lock));
    z_drop(z_move(bad.lock));
}

/* ---- liveliness gets ------------------------------------------------------------------------------- */

static void test_gets(void)
{
    rig_t r;
    if (!rig_open(&r)) {
        return;
    }
    z_view_keyexpr_t ke, own;
    z_view_keyexpr_from_str(&ke, "api/g/**");
    z_view_keyexpr_from_str(&own, "api/g/own");
    z_owned_liveliness_token_t tok;
    CHECK_EQ_INT(z_liveliness_declare_token(z_loan(r.s), &tok, z_loan(own), NULL), Z_OK);

    events_t got;
    events_init(&got);
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_drop, &got);
    unsigned mark = fake_msgs(&r.f);
    z_liveliness_get_options_t opts;
    CHECK_EQ_INT(z_liveliness_get_options_default(&opts), Z_OK);
    CHECK_EQ_INT(opts.timeout_ms, 0);
    CHECK_EQ_INT(z_liveliness_get(z_loan(r.s), z_loan(ke), z_move(cb), &opts), Z_OK);
    CHECK(event_is(&got, 0, "reply api/g/own", 0)); /* our own, at once */
    CHECK_EQ_INT(atomic_load(&got.dropped), 0);    /* a peer was asked: the end comes later */
    fake_msg_t m;
    CHECK(fake_wait_msg(&r.f, mark, ZM_MID_N_INTEREST, 0, &m, 3000) >= 0);
    CHECK_EQ_INT(fake_declare_ex(&r.f, ZM_DECL_TOKEN, 0, "api/g/far", 9, true, m.id, false), Z_OK);
    CHECK_EQ_INT(fake_declare_ex(&r.f, ZM_DECL_FINAL, 0, NULL, 0, true, m.id, true), Z_OK);
    CHECK(wait_dropped(&got, 3000));
    CHECK(event_is(&got, 1, "reply api/g/far", 0));
    CHECK_EQ_INT(events_count(&got), 2);

    /* misuse: the callback is taken on every path */
    events_t bad;
    events_init(&bad);
    z_closure(&cb, on_reply, on_drop, &bad);
    CHECK_EQ_INT(z_liveliness_get(z_loan(r.s), NULL, z_move(cb), NULL), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&bad.dropped), 1);
    CHECK_EQ_INT(z_liveliness_get(z_loan(r.s), z_loan(ke), NULL, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_liveliness_get_options_default(NULL), Z_EINVAL);

#ifdef Z_FEATURE_UNSTABLE_API
    /* a get the peer does not answer ends when its token is cancelled */
    events_t held;
    events_init(&held);
    z_owned_cancellation_token_t token, clone;
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    CHECK_EQ_INT(z_cancellation_token_clone(&clone, z_loan(token)), Z_OK);
    opts.cancellation_token = z_move(clone);
    opts.timeout_ms = 60000;
    z_closure(&cb, on_reply, on_drop, &held);
    mark = fake_msgs(&r.f);
    CHECK_EQ_INT(z_liveliness_get(z_loan(r.s), z_loan(ke), z_move(cb), &opts), Z_OK);
    CHECK(fake_wait_msg(&r.f, mark, ZM_MID_N_INTEREST, 0, &m, 3000) >= 0);
    CHECK_EQ_INT(atomic_load(&held.dropped), 0);
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
    CHECK(wait_dropped(&held, 3000));

    /* a cancelled token refuses the get, and its closure is dropped */
    CHECK_EQ_INT(z_cancellation_token_clone(&clone, z_loan(token)), Z_OK);
    opts.cancellation_token = z_move(clone);
    z_closure(&cb, on_reply, on_drop, &bad);
    CHECK_EQ_INT(z_liveliness_get(z_loan(r.s), z_loan(ke), z_move(cb), &opts), Z_ERR_CANCELLED);
    CHECK_EQ_INT(atomic_load(&bad.dropped), 2);
    z_drop(z_move(token));
    z_drop(z_move(held.lock));
#endif

    z_drop(z_move(tok));
    rig_close(&r);
    z_drop(z_move(got.lock));
    z_drop(z_move(bad.lock));
}

int main(void)
{
    test_tokens();
    test_subscribers();
    test_gets();
    return CHECK_DONE();
}
