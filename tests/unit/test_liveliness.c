/*
 * Liveliness in one process over loopback TCP: a listening peer-mode node under test, and fake
 * peers (zmote's own transport) that declare tokens, ask for them and answer as peers or as a
 * router would. Checked: a peer's tokens as PUT and DELETE (its death included), the bounds of
 * its token table, invalid keys, our own tokens to our own subscribers and to peers, the
 * answer to an INTEREST, liveliness gets, and the interests a router is sent. Every wait is
 * bounded; absence of an event is shown by a later event arriving first.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "check.h"
#include "fake_peer.h"
#include "session/session.h"
#include "zmote/port.h"

#define EVENTS_MAX 64

/* What a liveliness subscriber or a get heard, in order. */
typedef struct {
    zm_mutex_t lock;
    unsigned n;
    uint8_t kind[EVENTS_MAX];
    char key[EVENTS_MAX][48];
    atomic_bool dropped;
} events_t;

static void events_init(events_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    CHECK_EQ_INT(zm_port_mutex_init(&ev->lock), Z_OK);
}

static void events_add(events_t *ev, uint8_t kind, const char *key, size_t len)
{
    zm_port_mutex_lock(&ev->lock);
    if (ev->n < EVENTS_MAX) {
        size_t n = len < sizeof(ev->key[0]) ? len : sizeof(ev->key[0]) - 1;
        memcpy(ev->key[ev->n], key, n);
        ev->key[ev->n][n] = '\0';
        ev->kind[ev->n] = kind;
        ev->n++;
    }
    zm_port_mutex_unlock(&ev->lock);
}

static void on_token(const zm_sample_t *smp, void *ctx) { events_add(ctx, smp->kind, smp->key, smp->key_len); }

static void on_reply(const zm_reply_in_t *r, void *ctx)
{
    events_add(ctx, r->kind == ZM_REPLY_OK ? r->sample.kind : 0xff, r->sample.key, r->sample.key_len);
}

static void on_drop(void *ctx)
{
    events_t *ev = ctx;
    atomic_store(&ev->dropped, true);
}

/* Waits up to ms for event i; true when it is kind on key ("PUT live/a" style checks). */
static bool event_is(events_t *ev, unsigned i, uint8_t kind, const char *key, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    for (;;) {
        zm_port_mutex_lock(&ev->lock);
        bool there = ev->n > i;
        bool same = there && ev->kind[i] == kind && strcmp(ev->key[i], key) == 0;
        if (there && !same) {
            fprintf(stderr, "    event %u: kind %u key '%s', wanted kind %u key '%s'\n", i, ev->kind[i], ev->key[i],
                    kind, key);
        }
        zm_port_mutex_unlock(&ev->lock);
        if (there || zm_port_clock_ms() > deadline) {
            return same;
        }
        zm_port_sleep_ms(2); /* the callback runs on the node's reader: polled, bounded */
    }
}

/* Waits up to ms for event i; true when it is kind on one of the keys a and b. */
static bool event_either(events_t *ev, unsigned i, uint8_t kind, const char *a, const char *b, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    for (;;) {
        zm_port_mutex_lock(&ev->lock);
        bool there = ev->n > i;
        bool same = there && ev->kind[i] == kind && (strcmp(ev->key[i], a) == 0 || strcmp(ev->key[i], b) == 0);
        zm_port_mutex_unlock(&ev->lock);
        if (there || zm_port_clock_ms() > deadline) {
            return same;
        }
        zm_port_sleep_ms(2);
    }
}

static unsigned events_count(events_t *ev)
{
    zm_port_mutex_lock(&ev->lock);
    unsigned n = ev->n;
    zm_port_mutex_unlock(&ev->lock);
    return n;
}

static bool wait_dropped(events_t *ev, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    while (!atomic_load(&ev->dropped) && zm_port_clock_ms() <= deadline) {
        zm_port_sleep_ms(2);
    }
    return atomic_load(&ev->dropped);
}

/* The node under test (peer mode, listening) with a liveliness subscriber on every key under live. */
static zm_session_t *node_open(uint16_t *port, events_t *ev)
{
    zm_session_t *s = node_listen(port, true);
    CHECK(s != NULL);
    uint32_t id = 0;
    if (s != NULL) {
        CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/**", 7, false, on_token, NULL, ev, &id), Z_OK);
    }
    return s;
}

/*
 * From message number from on, the first DECLARE of kind with interest id iid (-1: with or
 * without one) that the node sent f, waiting up to ms: its number, or -1.
 */
static int wait_decl(fake_t *f, unsigned from, uint8_t kind, long iid, fake_msg_t *m, uint32_t ms)
{
    for (;;) {
        int at = fake_wait_msg(f, from, ZM_MID_N_DECLARE, kind, m, ms);
        if (at < 0 || iid < 0 || (m->has_iid && m->iid == (uint32_t)iid)) {
            return at;
        }
        from = (unsigned)at + 1;
    }
}

/* The node took f in: its declarations to f ended with the D_FINAL of the initial interest. */
static bool welcomed(fake_t *f)
{
    fake_msg_t m;
    return wait_decl(f, 0, ZM_DECL_FINAL, 0, &m, 3000) >= 0;
}

static z_result_t token(fake_t *f, uint32_t id, const char *key)
{
    return fake_declare_ex(f, ZM_DECL_TOKEN, id, key, strlen(key), false, 0, true);
}

static z_result_t untoken(fake_t *f, uint32_t id, const char *key)
{
    return fake_declare_ex(f, ZM_UNDECL_TOKEN, id, key, key != NULL ? strlen(key) : 0, false, 0, true);
}

/* ---- a peer's tokens ------------------------------------------------------------------------------ */

static void test_peer_tokens(void)
{
    uint16_t port = 0;
    events_t ev;
    events_init(&ev);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000) || !welcomed(&f)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    CHECK_EQ_INT(token(&f, 1, "live/a"), Z_OK);
    CHECK(event_is(&ev, 0, ZM_SAMPLE_PUT, "live/a", 3000));
    CHECK_EQ_INT(untoken(&f, 1, NULL), Z_OK);
    CHECK(event_is(&ev, 1, ZM_SAMPLE_DELETE, "live/a", 3000));

    /* an unknown id without a key is ignored, as is a redeclaration and a token elsewhere */
    CHECK_EQ_INT(untoken(&f, 99, NULL), Z_OK);
    CHECK_EQ_INT(token(&f, 2, "live/b"), Z_OK);
    CHECK_EQ_INT(token(&f, 2, "live/b"), Z_OK);
    CHECK_EQ_INT(token(&f, 4, "other/d"), Z_OK);
    CHECK_EQ_INT(token(&f, 3, "live/c"), Z_OK);
    CHECK(event_is(&ev, 2, ZM_SAMPLE_PUT, "live/b", 3000));
    CHECK(event_is(&ev, 3, ZM_SAMPLE_PUT, "live/c", 3000));

    /* an unknown id with its key (Rust routers send these): a DELETE of that key */
    CHECK_EQ_INT(untoken(&f, 77, "live/x"), Z_OK);
    CHECK(event_is(&ev, 4, ZM_SAMPLE_DELETE, "live/x", 3000));

    /* its current answers go only to the subscriber that asked: none here, so nothing */
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_TOKEN, 0, "live/late", 9, true, 12345, true), Z_OK);

    /* the peer dies: each token it had goes */
    fake_close(&f);
    CHECK(event_either(&ev, 5, ZM_SAMPLE_DELETE, "live/b", "live/c", 3000));
    CHECK(event_either(&ev, 6, ZM_SAMPLE_DELETE, "live/b", "live/c", 3000));
    CHECK(strcmp(ev.key[5], ev.key[6]) != 0);
    zm_session_close(s);
    CHECK_EQ_INT(events_count(&ev), 7);
    zm_port_mutex_destroy(&ev.lock);
}

/* A subscriber with history hears at once of the tokens peers pushed, asking them nothing. */
static void test_peer_history(void)
{
    uint16_t port = 0;
    events_t ev;
    events_init(&ev);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000) || !welcomed(&f)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    CHECK_EQ_INT(token(&f, 1, "live/h1"), Z_OK);
    CHECK_EQ_INT(token(&f, 2, "live/h2"), Z_OK);
    CHECK_EQ_INT(token(&f, 3, "else/h3"), Z_OK);
    CHECK(event_is(&ev, 1, ZM_SAMPLE_PUT, "live/h2", 3000)); /* both in */
    events_t hist, none;
    events_init(&hist);
    events_init(&none);
    unsigned mark = fake_msgs(&f);
    uint32_t h = 0, nh = 0;
    CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/*", 6, true, on_token, NULL, &hist, &h), Z_OK);
    CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/*", 6, false, on_token, NULL, &none, &nh), Z_OK);
    CHECK(event_either(&hist, 0, ZM_SAMPLE_PUT, "live/h1", "live/h2", 0)); /* before the declaration returned */
    CHECK(event_either(&hist, 1, ZM_SAMPLE_PUT, "live/h1", "live/h2", 0));
    CHECK_EQ_INT(events_count(&hist), 2);
    CHECK_EQ_INT(untoken(&f, 1, NULL), Z_OK);
    CHECK(event_is(&none, 0, ZM_SAMPLE_DELETE, "live/h1", 3000)); /* no history: only what comes after */
    fake_msg_t m;
    CHECK(fake_wait_msg(&f, mark, ZM_MID_N_INTEREST, 0, &m, 0) < 0); /* a peer is asked nothing */
    fake_close(&f);
    zm_session_close(s);
    zm_port_mutex_destroy(&ev.lock);
    zm_port_mutex_destroy(&hist.lock);
    zm_port_mutex_destroy(&none.lock);
}

/* More tokens than ZM_PEER_DECLS_MAX, or an invalid key: the link is closed, nothing delivered. */
static void test_token_limits(void)
{
    uint16_t port = 0;
    events_t ev;
    events_init(&ev);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000) || !welcomed(&f)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    char key[32];
    for (uint32_t i = 0; i < ZM_PEER_DECLS_MAX - 1; i++) {
        int n = snprintf(key, sizeof(key), "k/%u", (unsigned)i);
        CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_TOKEN, i + 1, key, (size_t)n, false, 0, false), Z_OK);
    }
    CHECK_EQ_INT(token(&f, ZM_PEER_DECLS_MAX, "live/last"), Z_OK); /* the last that fits */
    CHECK(event_is(&ev, 0, ZM_SAMPLE_PUT, "live/last", 3000));
    CHECK_EQ_INT(token(&f, ZM_PEER_DECLS_MAX + 1, "live/over"), Z_OK);
    CHECK(fake_wait_closed(&f, 3000));
    fake_close(&f);
    CHECK(event_is(&ev, 1, ZM_SAMPLE_DELETE, "live/last", 3000)); /* its tokens went with it */

    static const char *bad[] = {"live//a", "live/", "live/a#b"};
    for (size_t i = 0; i < ZM_ARRAY_LEN(bad); i++) {
        CHECK(fake_open(&f, port, 10000));
        CHECK_EQ_INT(token(&f, 1, bad[i]), Z_OK);
        CHECK(fake_wait_closed(&f, 3000));
        fake_close(&f);
    }
    /* another peer is served as before, and nothing came of the bad ones */
    CHECK(fake_open(&f, port, 10000));
    CHECK_EQ_INT(token(&f, 1, "live/good"), Z_OK);
    CHECK(event_is(&ev, 2, ZM_SAMPLE_PUT, "live/good", 3000));
    fake_close(&f);
    CHECK(event_is(&ev, 3, ZM_SAMPLE_DELETE, "live/good", 3000));
    zm_session_close(s);
    zm_port_mutex_destroy(&ev.lock);
}

/* ---- our own tokens ------------------------------------------------------------------------------- */

static void test_own_tokens(void)
{
    uint16_t port = 0;
    events_t ev, hist;
    events_init(&ev);
    events_init(&hist);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000) || !welcomed(&f)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    /* a token reaches our subscriber and the peer */
    unsigned mark = fake_msgs(&f);
    uint32_t tok = 0, other = 0, late = 0;
    CHECK_EQ_INT(zm_session_declare_token(s, "live/own", 8, &tok), Z_OK);
    CHECK(event_is(&ev, 0, ZM_SAMPLE_PUT, "live/own", 3000));
    fake_msg_t m;
    CHECK(fake_wait_msg(&f, mark, ZM_MID_N_DECLARE, ZM_DECL_TOKEN, &m, 3000) >= 0);
    CHECK_EQ_INT(m.id, tok);
    CHECK_EQ_STR(m.key, "live/own");
    CHECK(!m.has_iid);

    /* a subscriber with history hears of it at once, one without does not */
    CHECK_EQ_INT(zm_session_declare_token(s, "other/t", 7, &other), Z_OK);
    uint32_t h = 0, nh = 0;
    events_t none;
    events_init(&none);
    CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/*", 6, true, on_token, on_drop, &hist, &h), Z_OK);
    CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/*", 6, false, on_token, on_drop, &none, &nh),
                 Z_OK);
    CHECK(event_is(&hist, 0, ZM_SAMPLE_PUT, "live/own", 0)); /* delivered before the declaration returned */
    CHECK_EQ_INT(zm_session_declare_token(s, "live/late", 9, &late), Z_OK);
    CHECK(event_is(&none, 0, ZM_SAMPLE_PUT, "live/late", 0));
    CHECK(event_is(&hist, 1, ZM_SAMPLE_PUT, "live/late", 0));

    /* a peer that comes later hears of our tokens, then of the end of our declarations */
    fake_t g;
    CHECK(fake_open(&g, port, 10000) && welcomed(&g));
    int own = -1, lat = -1, fin = -1;
    for (unsigned i = 0; i < fake_msgs(&g); i++) {
        if (fake_wait_msg(&g, i, ZM_MID_N_DECLARE, ZM_DECL_TOKEN, &m, 0) == (int)i) {
            own = strcmp(m.key, "live/own") == 0 ? (int)i : own;
            lat = strcmp(m.key, "live/late") == 0 ? (int)i : lat;
        } else if (fake_wait_msg(&g, i, ZM_MID_N_DECLARE, ZM_DECL_FINAL, &m, 0) == (int)i) {
            fin = (int)i;
        }
    }
    CHECK(own >= 0 && lat >= 0 && fin > own && fin > lat);

    /* undeclared: a DELETE here, an undeclaration to the peers */
    mark = fake_msgs(&f);
    CHECK_EQ_INT(zm_session_undeclare_token(s, tok), Z_OK);
    CHECK_EQ_INT(zm_session_undeclare_token(s, tok), Z_EINVAL);
    CHECK(event_is(&ev, 2, ZM_SAMPLE_DELETE, "live/own", 0));
    CHECK(event_is(&hist, 2, ZM_SAMPLE_DELETE, "live/own", 0));
    CHECK(event_is(&none, 1, ZM_SAMPLE_DELETE, "live/own", 0));
    CHECK(fake_wait_msg(&f, mark, ZM_MID_N_DECLARE, ZM_UNDECL_TOKEN, &m, 3000) >= 0);
    CHECK_EQ_INT(m.id, tok);

    /* a subscriber undeclared hears no more, and its drop ran */
    CHECK_EQ_INT(zm_session_undeclare_liveliness_subscriber(s, h), Z_OK);
    CHECK(atomic_load(&hist.dropped));
    CHECK_EQ_INT(zm_session_undeclare_token(s, late), Z_OK);
    CHECK(event_is(&none, 2, ZM_SAMPLE_DELETE, "live/late", 0));
    CHECK_EQ_INT(events_count(&hist), 3);

    fake_close(&g);
    fake_close(&f);
    zm_session_close(s);
    CHECK(atomic_load(&none.dropped)); /* the session's end ends its subscribers */
    zm_port_mutex_destroy(&ev.lock);
    zm_port_mutex_destroy(&hist.lock);
    zm_port_mutex_destroy(&none.lock);
}

/* A peer's INTEREST in tokens: our matching tokens with its id, then D_FINAL. */
static void test_interest_answer(void)
{
    uint16_t port = 0;
    events_t ev;
    events_init(&ev);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000) || !welcomed(&f)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    uint32_t a = 0, b = 0;
    CHECK_EQ_INT(zm_session_declare_token(s, "q/a", 3, &a), Z_OK);
    CHECK_EQ_INT(zm_session_declare_token(s, "r/b", 3, &b), Z_OK);
    unsigned mark = fake_msgs(&f);
    CHECK_EQ_INT(fake_interest(&f, 41, ZM_INTEREST_CURRENT, ZM_INTEREST_K | ZM_INTEREST_T | ZM_INTEREST_R, "q/**"),
                 Z_OK);
    fake_msg_t m;
    int fin = wait_decl(&f, mark, ZM_DECL_FINAL, 41, &m, 3000);
    CHECK(fin >= 0);
    CHECK(m.has_iid && m.iid == 41);
    int tok = wait_decl(&f, mark, ZM_DECL_TOKEN, 41, &m, 0);
    CHECK(tok >= 0 && tok < fin);
    CHECK_EQ_STR(m.key, "q/a");
    CHECK(m.has_iid && m.iid == 41 && m.id == a);
    CHECK(wait_decl(&f, (unsigned)tok + 1, ZM_DECL_TOKEN, 41, &m, 0) < 0); /* r/b is not asked */
    fake_close(&f);
    zm_session_close(s);
    zm_port_mutex_destroy(&ev.lock);
}

/* ---- liveliness gets ------------------------------------------------------------------------------ */

static void test_get(void)
{
    uint16_t port = 0;
    events_t ev;
    events_init(&ev);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000) || !welcomed(&f)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    uint32_t own = 0;
    CHECK_EQ_INT(zm_session_declare_token(s, "live/own", 8, &own), Z_OK);
    events_t got;
    events_init(&got);
    unsigned mark = fake_msgs(&f);
    uint32_t gid = 0;
    CHECK_EQ_INT(zm_session_liveliness_get(s, "live/**", 7, 10000, on_reply, on_drop, &got, NULL, &gid), Z_OK);
    CHECK(event_is(&got, 0, ZM_SAMPLE_PUT, "live/own", 0)); /* our own, at once */
    fake_msg_t m;
    CHECK(fake_wait_msg(&f, mark, ZM_MID_N_INTEREST, 0, &m, 3000) >= 0);
    CHECK_EQ_INT(m.mode, ZM_INTEREST_CURRENT);
    CHECK_EQ_INT(m.options & (ZM_INTEREST_K | ZM_INTEREST_T | ZM_INTEREST_R | ZM_INTEREST_S | ZM_INTEREST_Q),
                 ZM_INTEREST_K | ZM_INTEREST_T | ZM_INTEREST_R);
    CHECK_EQ_STR(m.key, "live/**");
    /* the peer answers as Rust peers do: id 0, the interest's id, then D_FINAL */
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_TOKEN, 0, "live/r1", 7, true, m.id, false), Z_OK);
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_TOKEN, 0, "live/r2", 7, true, m.id, false), Z_OK);
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_FINAL, 0, NULL, 0, true, m.id, true), Z_OK);
    CHECK(wait_dropped(&got, 3000));
    CHECK(event_is(&got, 1, ZM_SAMPLE_PUT, "live/r1", 0));
    CHECK(event_is(&got, 2, ZM_SAMPLE_PUT, "live/r2", 0));
    CHECK_EQ_INT(events_count(&got), 3);
    CHECK_EQ_INT(events_count(&ev), 1); /* answers to a get are no news for subscribers */

    /* a peer that does not answer: the get ends at its timeout */
    events_t slow;
    events_init(&slow);
    uint64_t t0 = zm_port_clock_ms();
    CHECK_EQ_INT(zm_session_liveliness_get(s, "none/**", 7, 300, on_reply, on_drop, &slow, NULL, &gid), Z_OK);
    CHECK(wait_dropped(&slow, 5000));
    CHECK(zm_port_clock_ms() - t0 >= 300);
    CHECK_EQ_INT(events_count(&slow), 0);

    /* one cancelled ends at once: by its id, or by its token */
    events_t cancelled;
    events_init(&cancelled);
    CHECK_EQ_INT(zm_session_liveliness_get(s, "none/**", 7, 60000, on_reply, on_drop, &cancelled, NULL, &gid), Z_OK);
    CHECK(!atomic_load(&cancelled.dropped));
    zm_session_get_cancel(s, gid);
    CHECK(atomic_load(&cancelled.dropped));
    if (ZM_UNSTABLE_API) { /* tokens come with the unstable API, which alone can make them */
        zm_cancel_t *token = NULL;
        CHECK_EQ_INT(zm_cancel_new(&token), Z_OK);
        atomic_store(&cancelled.dropped, false);
        CHECK_EQ_INT(zm_session_liveliness_get(s, "none/**", 7, 60000, on_reply, on_drop, &cancelled, token, &gid),
                     Z_OK);
        CHECK(!atomic_load(&cancelled.dropped));
        zm_cancel_cancel(token);
        CHECK(atomic_load(&cancelled.dropped));
        CHECK_EQ_INT(zm_session_liveliness_get(s, "none/**", 7, 60000, on_reply, on_drop, &cancelled, token, &gid),
                     Z_ERR_CANCELLED);
        zm_cancel_unref(token);
    }

    /* one whose peer dies ends when it is gone */
    events_t gone;
    events_init(&gone);
    CHECK_EQ_INT(zm_session_liveliness_get(s, "none/**", 7, 60000, on_reply, on_drop, &gone, NULL, &gid), Z_OK);
    fake_close(&f);
    CHECK(wait_dropped(&gone, 5000));
    zm_session_close(s);
    zm_port_mutex_destroy(&ev.lock);
    zm_port_mutex_destroy(&got.lock);
    zm_port_mutex_destroy(&slow.lock);
    zm_port_mutex_destroy(&cancelled.lock);
    zm_port_mutex_destroy(&gone.lock);
}

/* ---- a router ------------------------------------------------------------------------------------- */

/* A router is sent our subscribers' interests, and its answers are kept to name their tokens. */
static void test_router_interests(void)
{
    uint16_t port = 0;
    events_t ev;
    events_init(&ev);
    zm_session_t *s = node_open(&port, &ev);
    fake_t f;
    if (s == NULL || !fake_open_as(&f, port, 10000, ZM_WAI_ROUTER)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    /* the subscriber that was there: current and future tokens */
    fake_msg_t m;
    CHECK(fake_wait_msg(&f, 0, ZM_MID_N_INTEREST, 0, &m, 3000) >= 0);
    CHECK_EQ_INT(m.mode, ZM_INTEREST_CURRENT_FUTURE);
    CHECK_EQ_STR(m.key, "live/**");
    uint32_t first = m.id;
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_TOKEN, 5, "live/q", 6, true, first, false), Z_OK);
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_FINAL, 0, NULL, 0, true, first, true), Z_OK);
    CHECK(event_is(&ev, 0, ZM_SAMPLE_PUT, "live/q", 3000));

    /* a new one without history: future only; with history: both, and its answers are its alone */
    events_t nh, hist;
    events_init(&nh);
    events_init(&hist);
    uint32_t a = 0, b = 0;
    unsigned mark = fake_msgs(&f);
    CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/*", 6, false, on_token, NULL, &nh, &a), Z_OK);
    int at = fake_wait_msg(&f, mark, ZM_MID_N_INTEREST, 0, &m, 3000);
    CHECK(at >= 0 && m.mode == ZM_INTEREST_FUTURE && m.id == a);
    CHECK_EQ_INT(zm_session_declare_liveliness_subscriber(s, "live/*", 6, true, on_token, NULL, &hist, &b), Z_OK);
    CHECK(fake_wait_msg(&f, (unsigned)at + 1, ZM_MID_N_INTEREST, 0, &m, 3000) >= 0);
    CHECK(m.mode == ZM_INTEREST_CURRENT_FUTURE && m.id == b);
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_TOKEN, 5, "live/q", 6, true, b, false), Z_OK); /* known: to b alone */
    CHECK_EQ_INT(fake_declare_ex(&f, ZM_DECL_FINAL, 0, NULL, 0, true, b, true), Z_OK);
    CHECK(event_is(&hist, 0, ZM_SAMPLE_PUT, "live/q", 3000));
    CHECK_EQ_INT(token(&f, 6, "live/z"), Z_OK); /* a future one: to every subscriber */
    CHECK(event_is(&ev, 1, ZM_SAMPLE_PUT, "live/z", 3000));
    CHECK(event_is(&nh, 0, ZM_SAMPLE_PUT, "live/z", 3000));
    CHECK(event_is(&hist, 1, ZM_SAMPLE_PUT, "live/z", 3000));

    /* the router's answer named the token: its undeclaration is a DELETE under that name */
    CHECK_EQ_INT(untoken(&f, 5, NULL), Z_OK);
    CHECK(event_is(&ev, 2, ZM_SAMPLE_DELETE, "live/q", 3000));
    CHECK(event_is(&nh, 1, ZM_SAMPLE_DELETE, "live/q", 3000));

    /* undeclared: the router is told the interest ends */
    mark = fake_msgs(&f);
    CHECK_EQ_INT(zm_session_undeclare_liveliness_subscriber(s, a), Z_OK);
    CHECK(fake_wait_msg(&f, mark, ZM_MID_N_INTEREST, 0, &m, 3000) >= 0);
    CHECK(m.mode == ZM_INTEREST_FINAL && m.id == a);
    fake_close(&f);
    CHECK(event_is(&ev, 3, ZM_SAMPLE_DELETE, "live/z", 3000)); /* the router went: so did its tokens */
    zm_session_close(s);
    zm_port_mutex_destroy(&ev.lock);
    zm_port_mutex_destroy(&nh.lock);
    zm_port_mutex_destroy(&hist.lock);
}

int main(void)
{
    test_peer_tokens();
    test_peer_history();
    test_token_limits();
    test_own_tokens();
    test_interest_answer();
    test_get();
    test_router_interests();
    return CHECK_DONE();
}
