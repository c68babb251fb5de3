/*
 * The connectivity API over two real sessions in this process: a peer listening on loopback (a)
 * and a peer that connects to it (b). Checked: the transports and links each lists (the other's
 * zid, each link's locators the reverse of the other's), listeners with and without history (a
 * transport opened before a listener is not a change to it), the link filter on a transport, the
 * order of events (a link's PUT after its transport's, its DELETE before), the end of b told to
 * a, undeclared and background listeners (their drops), and misuse. Every wait is bounded.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "check.h"
#include "zenoh-pico.h"
#include "zmote/port.h"

#define EVENTS_MAX 16

/* What listeners heard, in order: "transport PUT", "link DELETE"..., with the zid and locators. */
typedef struct {
    z_owned_mutex_t lock;
    unsigned n;
    char what[EVENTS_MAX][24];
    z_id_t zid[EVENTS_MAX];
    char src[EVENTS_MAX][ZM_LINK_LOCATOR_MAX];
    char dst[EVENTS_MAX][ZM_LINK_LOCATOR_MAX];
    atomic_int dropped;
} events_t;

static void events_init(events_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    z_mutex_init(&ev->lock);
}

static unsigned events_n(events_t *ev)
{
    z_mutex_lock(z_loan_mut(ev->lock));
    unsigned n = ev->n;
    z_mutex_unlock(z_loan_mut(ev->lock));
    return n;
}

static void text_of(const z_loaned_link_t *link, bool src, char out[ZM_LINK_LOCATOR_MAX])
{
    z_owned_string_t s;
    out[0] = '\0';
    if ((src ? z_link_src(link, &s) : z_link_dst(link, &s)) == Z_OK) {
        snprintf(out, ZM_LINK_LOCATOR_MAX, "%.*s", (int)z_string_len(z_loan(s)), z_string_data(z_loan(s)));
        z_drop(z_move(s));
    }
}

static void events_add(events_t *ev, const char *what, z_sample_kind_t kind, z_id_t zid, const z_loaned_link_t *link)
{
    z_mutex_lock(z_loan_mut(ev->lock));
    if (ev->n < EVENTS_MAX) {
        snprintf(ev->what[ev->n], sizeof(ev->what[0]), "%s %s", what, kind == Z_SAMPLE_KIND_PUT ? "PUT" : "DELETE");
        ev->zid[ev->n] = zid;
        if (link != NULL) {
            text_of(link, true, ev->src[ev->n]);
            text_of(link, false, ev->dst[ev->n]);
        }
        ev->n++;
    }
    z_mutex_unlock(z_loan_mut(ev->lock));
}

static void on_transport_event(z_loaned_transport_event_t *e, void *ctx)
{
    events_add(ctx, "transport", z_transport_event_kind(e), z_transport_zid(z_transport_event_transport(e)), NULL);
}

static void on_link_event(z_loaned_link_event_t *e, void *ctx)
{
    const z_loaned_link_t *link = z_link_event_link(e);
    events_add(ctx, "link", z_link_event_kind(e), z_link_zid(link), link);
}

static void on_transport(z_loaned_transport_t *t, void *ctx)
{
    CHECK(!z_transport_is_multicast(t) && !z_transport_is_shm(t) && z_transport_is_qos(t));
    CHECK_EQ_INT(z_transport_whatami(t), Z_WHATAMI_PEER);
    events_add(ctx, "transport", Z_SAMPLE_KIND_PUT, z_transport_zid(t), NULL);
}

static void on_link(z_loaned_link_t *link, void *ctx)
{
    CHECK(z_link_is_streamed(link) && z_link_is_reliable(link) && z_link_mtu(link) > 0);
    events_add(ctx, "link", Z_SAMPLE_KIND_PUT, z_link_zid(link), link);
}

static void on_drop(void *ctx)
{
    events_t *ev = ctx;
    atomic_fetch_add(&ev->dropped, 1);
}

/* Waits up to ms for event i; true when it is want about zid. */
static bool event_is(events_t *ev, unsigned i, const char *want, z_id_t zid, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    for (;;) {
        z_mutex_lock(z_loan_mut(ev->lock));
        bool there = ev->n > i;
        bool same = there && strcmp(ev->what[i], want) == 0 && memcmp(ev->zid[i].id, zid.id, sizeof(zid.id)) == 0;
        if (there && !same) {
            fprintf(stderr, "    event %u: '%s', wanted '%s'\n", i, ev->what[i], want);
        }
        z_mutex_unlock(z_loan_mut(ev->lock));
        if (there || zm_port_clock_ms() > deadline) {
            return same;
        }
        z_sleep_ms(5); /* the events come from the session's worker: polled, bounded */
    }
}

static bool open_peer(z_owned_session_t *s, uint8_t key, const char *endpoint)
{
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer");
    zp_config_insert(z_loan_mut(c), key, endpoint);
    return z_open(s, z_move(c), NULL) == Z_OK;
}

/* A listens on a free loopback port, b connects to it. */
/* True once s lists a transport. */
static bool lists_a_transport(const z_loaned_session_t *s)
{
    events_t ev;
    events_init(&ev);
    z_owned_closure_transport_t ct;
    z_closure(&ct, on_transport, on_drop, &ev);
    bool some = z_info_transports(s, z_move(ct)) == Z_OK && ev.n > 0;
    z_drop(z_move(ev.lock));
    return some;
}

static bool open_pair(z_owned_session_t *a, z_owned_session_t *b)
{
    zm_socket_t probe;
    uint16_t port = 0;
    if (zm_port_tcp_listen(&probe, "127.0.0.1", 0) != Z_OK) {
        return false;
    }
    z_result_t rc = zm_port_socket_local_port(&probe, &port);
    zm_port_socket_close(&probe);
    char ep[64];
    snprintf(ep, sizeof(ep), "tcp/127.0.0.1:%u", port);
    if (rc != Z_OK || !open_peer(a, Z_CONFIG_LISTEN_KEY, ep)) {
        return false;
    }
    if (!open_peer(b, Z_CONFIG_CONNECT_KEY, ep)) {
        z_drop(z_move(*a));
        return false;
    }
    /* b's open returns when its handshake is done; a's accept task takes b in a moment later */
    uint64_t deadline = zm_port_clock_ms() + 5000;
    while (!lists_a_transport(z_loan(*a)) && zm_port_clock_ms() < deadline) {
        z_sleep_ms(5); /* polled, bounded */
    }
    return true;
}

static void list_all(const z_loaned_session_t *s, events_t *ev, z_moved_transport_t *filter)
{
    z_owned_closure_transport_t ct;
    z_closure(&ct, on_transport, on_drop, ev);
    CHECK_EQ_INT(z_info_transports(s, z_move(ct)), Z_OK);
    z_owned_closure_link_t cl;
    z_closure(&cl, on_link, on_drop, ev);
    z_info_links_options_t opts;
    z_info_links_options_default(&opts);
    opts.transport = filter;
    CHECK_EQ_INT(z_info_links(s, z_move(cl), &opts), Z_OK);
    CHECK_EQ_INT(atomic_load(&ev->dropped), 2); /* both closures dropped before the calls returned */
}

static void test_lists_and_events(void)
{
    z_owned_session_t a;
    z_owned_session_t b;
    if (!open_pair(&a, &b)) {
        CHECK(!"two sessions open on loopback");
        return;
    }
    z_id_t a_id = z_info_zid(z_loan(a));
    z_id_t b_id = z_info_zid(z_loan(b));

    /* each lists the other, with the same link seen from either end */
    events_t la;
    events_t lb;
    events_init(&la);
    events_init(&lb);
    list_all(z_loan(a), &la, NULL);
    list_all(z_loan(b), &lb, NULL);
    CHECK_EQ_INT(la.n, 2);
    CHECK_EQ_INT(lb.n, 2);
    CHECK(event_is(&la, 0, "transport PUT", b_id, 0) && event_is(&la, 1, "link PUT", b_id, 0));
    CHECK(event_is(&lb, 0, "transport PUT", a_id, 0) && event_is(&lb, 1, "link PUT", a_id, 0));
    CHECK_EQ_STR(la.src[1], lb.dst[1]);
    CHECK_EQ_STR(la.dst[1], lb.src[1]);
    CHECK(strncmp(la.src[1], "tcp/127.0.0.1:", 14) == 0);

    /* a link filter: the transport of b lets its link through, another transport none */
    events_t fa;
    events_init(&fa);
    z_owned_transport_t other;
    z_internal_transport_null(&other);
    CHECK(!z_internal_check(other));
    other._val._zid = a_id; /* no transport of a has a's own zid */
    list_all(z_loan(a), &fa, z_move(other));
    CHECK_EQ_INT(fa.n, 1); /* the transport, not its link */

    /* listeners: one with history hears b at once, one without hears nothing until a change */
    events_t hist;
    events_t none;
    events_init(&hist);
    events_init(&none);
    z_owned_closure_transport_event_t ct;
    z_closure(&ct, on_transport_event, on_drop, &hist);
    z_transport_events_listener_options_t topts;
    z_transport_events_listener_options_default(&topts);
    CHECK(!topts.history);
    topts.history = true;
    z_owned_transport_events_listener_t th;
    CHECK_EQ_INT(z_declare_transport_events_listener(z_loan(a), &th, z_move(ct), &topts), Z_OK);
    CHECK(z_internal_check(th));
    CHECK(event_is(&hist, 0, "transport PUT", b_id, 0)); /* before the declaration returned */
    z_owned_closure_link_event_t cl;
    z_closure(&cl, on_link_event, on_drop, &hist);
    z_link_events_listener_options_t lopts;
    z_link_events_listener_options_default(&lopts);
    lopts.history = true;
    z_owned_link_events_listener_t lh;
    CHECK_EQ_INT(z_declare_link_events_listener(z_loan(a), &lh, z_move(cl), &lopts), Z_OK);
    CHECK(event_is(&hist, 1, "link PUT", b_id, 0));
    CHECK_EQ_STR(hist.src[1], la.src[1]);
    z_closure(&ct, on_transport_event, on_drop, &none);
    z_owned_transport_events_listener_t tn;
    CHECK_EQ_INT(z_declare_transport_events_listener(z_loan(a), &tn, z_move(ct), NULL), Z_OK);
    z_closure(&cl, on_link_event, on_drop, &none);
    CHECK_EQ_INT(z_declare_background_link_events_listener(z_loan(a), z_move(cl), NULL), Z_OK);
    z_sleep_ms(700); /* a few lease steps: b opened before these listeners, so nothing comes */
    CHECK_EQ_INT(events_n(&none), 0);
    CHECK_EQ_INT(events_n(&hist), 2);

    /* b goes: a tells its link's DELETE, then its transport's */
    z_drop(z_move(b));
    CHECK(event_is(&none, 0, "link DELETE", b_id, 5000));
    CHECK(event_is(&none, 1, "transport DELETE", b_id, 5000));
    CHECK(event_is(&hist, 2, "link DELETE", b_id, 5000) || event_is(&hist, 2, "transport DELETE", b_id, 0));
    CHECK_EQ_STR(none.src[0], la.src[1]);

    /* undeclared: its drop ran, and nothing more comes to it */
    CHECK_EQ_INT(z_undeclare_transport_events_listener(z_move(th)), Z_OK);
    CHECK(!z_internal_check(th));
    CHECK_EQ_INT(atomic_load(&hist.dropped), 1);
    z_drop(z_move(lh));
    CHECK_EQ_INT(atomic_load(&hist.dropped), 2);
    z_drop(z_move(tn));

    /* nobody left to list; the owned listener of none ended, its background one lives on */
    events_t after;
    events_init(&after);
    list_all(z_loan(a), &after, NULL);
    CHECK_EQ_INT(after.n, 0);
    CHECK_EQ_INT(atomic_load(&none.dropped), 1);

    z_drop(z_move(a));
    CHECK_EQ_INT(atomic_load(&none.dropped), 2); /* the background one ended with its session */
    z_drop(z_move(la.lock));
    z_drop(z_move(lb.lock));
    z_drop(z_move(fa.lock));
    z_drop(z_move(hist.lock));
    z_drop(z_move(none.lock));
    z_drop(z_move(after.lock));
}

static void test_misuse(void)
{
    events_t ev;
    events_init(&ev);
    z_owned_closure_transport_t ct;
    z_closure(&ct, on_transport, on_drop, &ev);
    CHECK_EQ_INT(z_info_transports(NULL, z_move(ct)), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&ev.dropped), 1);
    CHECK_EQ_INT(z_info_transports(NULL, NULL), Z_EINVAL);
    z_owned_closure_transport_event_t cte;
    z_closure(&cte, on_transport_event, on_drop, &ev);
    CHECK_EQ_INT(z_declare_transport_events_listener(NULL, NULL, z_move(cte), NULL), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&ev.dropped), 2);
    z_owned_closure_link_event_t cle;
    z_closure(&cle, on_link_event, on_drop, &ev);
    CHECK_EQ_INT(z_declare_background_link_events_listener(NULL, z_move(cle), NULL), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&ev.dropped), 3);
    z_owned_link_events_listener_t l;
    z_internal_link_events_listener_null(&l);
    CHECK_EQ_INT(z_undeclare_link_events_listener(z_move(l)), Z_ENULL);
    z_drop(z_move(l)); /* a null one: nothing */
    z_drop(z_move(ev.lock));
}

int main(void)
{
    test_lists_and_events();
    test_misuse();
    return CHECK_DONE();
}
