/*
 * Scouting without multicast: the scouting locator's parsing, the scout's exchange and the
 * responder driven over unicast loopback sockets against fake nodes (a thread that answers
 * SCOUTs as a script says), a session's responder served by zp_read and by its accept task,
 * and the errors of z_scout and z_open on bad locators and interfaces, which fail before
 * anything is sent. Nothing here joins a group or sends to one: the tests that do are the
 * interop suite's, inside their network namespace.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "check.h"
#include "proto/codec.h"
#include "session/internal.h"
#include "transport/scout.h"
#include "zmote/port.h"

#if Z_FEATURE_SCOUTING && Z_FEATURE_MULTI_THREAD && Z_FEATURE_UNICAST_PEER

/* ---- allocations, counted, so that error paths are seen to leak nothing --------------------- */

static atomic_long allocs, frees;

static void *counting_alloc(void *ctx, size_t size)
{
    ZM_UNUSED(ctx);
    atomic_fetch_add(&allocs, 1);
    return malloc(size);
}

static void counting_free(void *ctx, void *ptr)
{
    ZM_UNUSED(ctx);
    if (ptr != NULL) {
        atomic_fetch_add(&frees, 1);
    }
    free(ptr);
}

static long live_blocks(void) { return atomic_load(&allocs) - atomic_load(&frees); }

/* ---- the scouting locator ---------------------------------------------------------------------- */

static void test_group_parse(void)
{
    static const struct {
        const char *locator;
        z_result_t rc;
        const char *group;
        uint16_t port;
        const char *iface;
    } cases[] = {
        {"udp/224.0.0.224:7446", Z_OK, "224.0.0.224", 7446, ""},
        {"udp/224.0.0.224:7446#iface=lo", Z_OK, "224.0.0.224", 7446, "lo"},
        {"udp/239.255.255.250:1900#iface=eth0;", Z_OK, "239.255.255.250", 1900, "eth0"},
        {"udp/224.0.0.1:1#;iface=wlan0", Z_OK, "224.0.0.1", 1, "wlan0"},
        {"udp/127.0.0.1:7446", ZM_E_LOCATOR, NULL, 0, NULL},      /* not a group */
        {"udp/223.255.255.255:7446", ZM_E_LOCATOR, NULL, 0, NULL}, /* just below 224/4 */
        {"udp/240.0.0.1:7446", ZM_E_LOCATOR, NULL, 0, NULL},       /* just above */
        {"udp/224.0.0.0224:7446", ZM_E_LOCATOR, NULL, 0, NULL},    /* four digits */
        {"udp/224.00.0.224:7446", ZM_E_LOCATOR, NULL, 0, NULL},    /* a leading zero: octal to some */
        {"udp/224.0.0:7446", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.256:7446", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/groups.example:7446", ZM_E_LOCATOR, NULL, 0, NULL}, /* a name */
        {"udp/224.0.0.224", ZM_E_LOCATOR, NULL, 0, NULL},         /* no port */
        {"udp/224.0.0.224:0", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.224:70000", ZM_E_LOCATOR, NULL, 0, NULL},
        {"224.0.0.224:7446", ZM_E_LOCATOR, NULL, 0, NULL},
        {"", ZM_E_LOCATOR, NULL, 0, NULL},
        {"tcp/224.0.0.224:7446", ZM_E_LOCATOR, NULL, 0, NULL}, /* scouting is udp */
        {"udp/[::1]:7446", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/[ff02::1]:7446", ZM_E_UNSUPPORTED, NULL, 0, NULL}, /* a group, but IPv6 */
        {"quic/224.0.0.224:7446", ZM_E_UNSUPPORTED, NULL, 0, NULL},
        {"udp/224.0.0.224:7446?a=1", ZM_E_UNSUPPORTED, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#ttl=2", ZM_E_UNSUPPORTED, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#iface=", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#iface", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#=lo", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#iface=a b", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#iface=lo#x", ZM_E_LOCATOR, NULL, 0, NULL},
        {"udp/224.0.0.224:7446#iface=abcdefghijklmnopqrstuvwxyz0123456", ZM_E_LOCATOR, NULL, 0, NULL},
    };
    for (size_t i = 0; i < ZM_ARRAY_LEN(cases); i++) {
        zm_scout_group_t g;
        z_result_t rc = zm_scout_group_parse(&g, cases[i].locator);
        CHECK_CTX(rc == cases[i].rc, "%s: %d instead of %d", cases[i].locator, rc, cases[i].rc);
        if (rc == Z_OK && cases[i].rc == Z_OK) {
            CHECK_EQ_STR(g.group, cases[i].group);
            CHECK_EQ_INT(g.port, cases[i].port);
            CHECK_EQ_STR(g.iface, cases[i].iface);
        }
    }
    zm_scout_group_t g;
    CHECK_EQ_INT(zm_scout_group_parse(&g, Z_CONFIG_MULTICAST_LOCATOR_DEFAULT), Z_OK);

    CHECK(zm_scout_locator_is_loopback("tcp/127.0.0.1:7447"));
    CHECK(zm_scout_locator_is_loopback("tcp/127.1.2.3:7447"));
    CHECK(zm_scout_locator_is_loopback("tcp/[::1]:7447"));
    CHECK(zm_scout_locator_is_loopback("tcp/localhost:7447"));
    CHECK(!zm_scout_locator_is_loopback("tcp/0.0.0.0:7447"));
    CHECK(!zm_scout_locator_is_loopback("tcp/[::]:7447"));
    CHECK(!zm_scout_locator_is_loopback("tcp/192.168.1.2:7447"));
    CHECK(!zm_scout_locator_is_loopback("tcp/1270.0.0.1:7447"));
    CHECK(!zm_scout_locator_is_loopback("serial/dev/ttyS0"));
}

/* What a session may dial from a HELLO: tcp and udp nodes at numeric addresses, nothing else. */
static void test_dialable(void)
{
    static const struct {
        const char *locator;
        bool dialable;
    } cases[] = {
        {"tcp/192.168.1.2:7447", true},
        {"tcp/127.0.0.1:7447", true},
        {"tcp/[::1]:7447", true},
        {"tcp/[fe80::1%lo]:7447", true},
        {"udp/10.0.0.1:7447", Z_FEATURE_LINK_UDP_UNICAST},
        {"tcp/router.example:7447", false}, /* a name: never looked up */
        {"tcp/localhost:7447", false},
        {"tcp/1.2.3:7447", false},
        {"tcp/01.2.3.4:7447", false},      /* octal to some resolvers */
        {"tcp/1.2.3.4.5:7447", false},
        {"udp/224.0.0.224:7446", false},   /* a group, not a node */
        {"udp/[ff02::1]:7446", false},
        {"serial//dev/pts/3", false},      /* a line of this machine */
        {"serial/dev/ttyS0#baudrate=115200", false},
        {"tls/127.0.0.1:7447", false},     /* no such link */
    };
    for (size_t i = 0; i < ZM_ARRAY_LEN(cases); i++) {
        zm_endpoint_t ep;
        const char *l = cases[i].locator;
        bool parsed = zm_endpoint_parse(&ep, l, strlen(l), ZM_ENDPOINT_CONNECT) == Z_OK;
        CHECK_CTX(parsed, "%s does not parse", l);
        CHECK_CTX(!parsed || zm_scout_locator_dialable(&ep) == cases[i].dialable, "%s", l);
    }
}

/* ---- sockets and messages ------------------------------------------------------------------------ */

/* A unicast socket on 127.0.0.1 with a port of the system's choosing, and its address. */
static bool udp_local(zm_socket_t *s, zm_addr_t *addr)
{
    uint16_t port = 0;
    if (zm_port_udp_open(s, "127.0.0.1", 0, false) != Z_OK) {
        return false;
    }
    if (zm_port_socket_local_port(s, &port) != Z_OK || zm_port_addr_resolve(addr, "127.0.0.1", port) != Z_OK) {
        zm_port_socket_close(s);
        return false;
    }
    return true;
}

static zm_zid_t zid_of(uint8_t first, uint8_t len)
{
    zm_zid_t z;
    memset(&z, 0, sizeof(z));
    z.len = len;
    for (uint8_t i = 0; i < len; i++) {
        z.id[i] = (uint8_t)(first + i);
    }
    return z;
}

/* A HELLO of zid, whatami and up to two locators (NULL: none), encoded into buf. */
static size_t hello_bytes(uint8_t *buf, size_t cap, const zm_zid_t *zid, uint8_t whatami, const char *loc1,
                          const char *loc2)
{
    uint8_t locs[600];
    zm_writer_t lw;
    zm_writer_init(&lw, locs, sizeof(locs));
    uint32_t n = 0;
    const char *list[2] = {loc1, loc2};
    for (int i = 0; i < 2; i++) {
        if (list[i] != NULL) {
            if (zm_write_zint(&lw, strlen(list[i])) != Z_OK || zm_write_bytes(&lw, list[i], strlen(list[i])) != Z_OK) {
                return 0;
            }
            n++;
        }
    }
    zm_scouting_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_HELLO;
    m.body.hello.version = ZM_PROTO_VERSION;
    m.body.hello.whatami = whatami;
    m.body.hello.zid = *zid;
    m.body.hello.has_locators = n > 0;
    m.body.hello.locator_count = n;
    m.body.hello.locators = zm_slice(locs, lw.len);
    zm_writer_t w;
    zm_writer_init(&w, buf, cap);
    return zm_scouting_encode(&w, &m) == Z_OK ? w.len : 0;
}

static size_t scout_bytes(uint8_t *buf, size_t cap, uint8_t what, const zm_zid_t *zid)
{
    zm_scouting_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_SCOUT;
    m.body.scout.version = ZM_PROTO_VERSION;
    m.body.scout.what = what;
    if (zid != NULL) {
        m.body.scout.has_zid = true;
        m.body.scout.zid = *zid;
    }
    zm_writer_t w;
    zm_writer_init(&w, buf, cap);
    return zm_scouting_encode(&w, &m) == Z_OK ? w.len : 0;
}

/* One datagram (the encoders' 0 is a failure, as is a send that fails); no CHECK: fakes call it
 * from their own thread, and every datagram they send is seen, or missed, by the test. */
static bool put_datagram(zm_socket_t *s, const uint8_t *buf, size_t len, const zm_addr_t *to)
{
    return len > 0 && zm_port_udp_send(s, buf, len, to, zm_port_clock_ms() + 1000u) == Z_OK;
}

static void send_to(zm_socket_t *s, const uint8_t *buf, size_t len, const zm_addr_t *to)
{
    CHECK(put_datagram(s, buf, len, to));
}

/* ---- a fake node: answers SCOUTs as its script says ------------------------------------------- */

typedef enum {
    FAKE_BASIC,  /* every SCOUT: noise, HELLOs of A (router), C (client), B (peer), A again */
    FAKE_SECOND, /* only the second SCOUT: a HELLO of A */
    FAKE_FLOOD,  /* the first SCOUT: HELLOs of FLOOD_ZIDS nodes in turn, as fast as it can, for FLOOD_MS */
    FAKE_SILENT, /* counts SCOUTs, answers none */
} fake_mode_t;

#define FLOOD_ZIDS 40u
#define FLOOD_MS 1500u
#define FAKE_LOCATOR "tcp/127.0.0.1:7447"

typedef struct {
    zm_socket_t sock;
    zm_addr_t addr;
    fake_mode_t mode;
    atomic_uint scouts;
    atomic_uint flooded; /* HELLOs the flood sent */
    atomic_bool stop;
    zm_scout_t first; /* the first SCOUT, decoded (no borrowed part is kept) */
    zm_task_t task;
} fake_t;

static void fake_answer(fake_t *f, const zm_addr_t *to, unsigned nth)
{
    uint8_t buf[ZM_SCOUT_HELLO_MAX + 64];
    zm_zid_t a = zid_of(0xa0, 16), b = zid_of(0xb0, 3), c = zid_of(0xc0, 1);
    switch (f->mode) {
    case FAKE_BASIC: {
        static const uint8_t junk[] = {0xff, 0x00, 0x01};
        (void)put_datagram(&f->sock, junk, sizeof(junk), to);
        memset(buf, 0x5a, sizeof(buf));
        (void)put_datagram(&f->sock, buf, ZM_SCOUT_HELLO_MAX + 16, to); /* longer than any HELLO read */
        (void)put_datagram(&f->sock, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_ROUTER, &a), to);
        (void)put_datagram(&f->sock, buf, hello_bytes(buf, sizeof(buf), &a, ZM_WAI_ROUTER, FAKE_LOCATOR, "udp/127.0.0.1:7447"), to);
        (void)put_datagram(&f->sock, buf, hello_bytes(buf, sizeof(buf), &c, ZM_WAI_CLIENT, FAKE_LOCATOR, NULL), to);
        (void)put_datagram(&f->sock, buf, hello_bytes(buf, sizeof(buf), &b, ZM_WAI_PEER, NULL, NULL), to);
        (void)put_datagram(&f->sock, buf, hello_bytes(buf, sizeof(buf), &a, ZM_WAI_ROUTER, FAKE_LOCATOR, "udp/127.0.0.1:7447"), to);
        /* A's zid with other locators: another node may have taken it, so it is reported too */
        (void)put_datagram(&f->sock, buf, hello_bytes(buf, sizeof(buf), &a, ZM_WAI_ROUTER, FAKE_LOCATOR, NULL), to);
        break;
    }
    case FAKE_SECOND:
        if (nth == 2) {
            (void)put_datagram(&f->sock, buf, hello_bytes(buf, sizeof(buf), &a, ZM_WAI_ROUTER, FAKE_LOCATOR, NULL), to);
        }
        break;
    case FAKE_FLOOD:
        if (nth == 1) {
            uint64_t end = zm_port_clock_ms() + FLOOD_MS;
            for (unsigned i = 0; zm_port_clock_ms() < end && !atomic_load(&f->stop); i++) {
                zm_zid_t z = zid_of((uint8_t)(i % FLOOD_ZIDS), 8);
                size_t n = hello_bytes(buf, sizeof(buf), &z, ZM_WAI_PEER, FAKE_LOCATOR, NULL);
                /* a full socket buffer drops some: what counts is that they keep coming */
                if (zm_port_udp_send(&f->sock, buf, n, to, zm_port_clock_ms() + 10u) == Z_OK) {
                    atomic_fetch_add(&f->flooded, 1u);
                }
            }
        }
        break;
    case FAKE_SILENT:
        break;
    }
}

static void *fake_main(void *arg)
{
    fake_t *f = arg;
    while (!atomic_load(&f->stop)) {
        if (zm_port_socket_wait_readable(&f->sock, 20) != Z_OK) {
            continue;
        }
        uint8_t buf[256];
        size_t n = 0;
        zm_addr_t from;
        if (zm_port_udp_recv(&f->sock, buf, sizeof(buf), &n, &from) != Z_OK) {
            continue;
        }
        zm_reader_t r;
        zm_reader_init(&r, buf, n);
        zm_scouting_msg_t m;
        if (zm_scouting_decode(&r, &m) != Z_OK || m.id != ZM_MID_SCOUT) {
            continue;
        }
        /* first is written before the count that publishes it: the test reads the count first */
        if (atomic_load(&f->scouts) == 0) {
            f->first = m.body.scout;
            f->first.unknown.n = 0;
        }
        unsigned nth = atomic_fetch_add(&f->scouts, 1u) + 1u;
        fake_answer(f, &from, nth);
    }
    return NULL;
}

static bool fake_start(fake_t *f, fake_mode_t mode)
{
    memset(f, 0, sizeof(*f));
    f->mode = mode;
    if (!udp_local(&f->sock, &f->addr)) {
        CHECK(false);
        return false;
    }
    CHECK_EQ_INT(zm_port_task_start(&f->task, fake_main, f), Z_OK);
    return true;
}

static void fake_stop(fake_t *f)
{
    atomic_store(&f->stop, true);
    zm_port_task_join(&f->task);
    zm_port_socket_close(&f->sock);
}

/* ---- the scout's side ------------------------------------------------------------------------------ */

typedef struct {
    unsigned n;
    zm_zid_t zid[256];
    uint8_t whatami[256];
    char first_locators[2][64];
    unsigned first_locator_count;
    unsigned stop_after; /* 0: never stop */
    uint32_t first_wait_ms; /* how long the first call takes */
} found_t;

static bool on_found(const zm_hello_t *h, void *arg)
{
    found_t *f = arg;
    if (f->n == 0) {
        zm_reader_t it;
        zm_reader_init(&it, h->locators.ptr, h->locators.len);
        zm_slice_t loc;
        bool got = true;
        while (f->first_locator_count < 2 && zm_locators_next(&it, &loc, &got) == Z_OK && got) {
            memcpy(f->first_locators[f->first_locator_count], loc.ptr, loc.len < 63 ? loc.len : 63);
            f->first_locator_count++;
        }
    }
    if (f->n < 256) {
        f->zid[f->n] = h->zid;
        f->whatami[f->n] = h->whatami;
    }
    f->n++;
    if (f->n == 1 && f->first_wait_ms != 0) {
        zm_port_sleep_ms(f->first_wait_ms); /* a slow callback: a connection being tried */
    }
    return f->stop_after != 0 && f->n >= f->stop_after;
}

static bool zid_eq(const zm_zid_t *a, const zm_zid_t *b)
{
    return a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

/* Runs one exchange against f; returns how long it took, in ms. */
static uint64_t scout_against(fake_t *f, const zm_scout_params_t *p, found_t *found, z_result_t *rc)
{
    zm_socket_t s;
    zm_addr_t mine;
    if (!udp_local(&s, &mine)) {
        CHECK(false);
        return 0;
    }
    uint64_t start = zm_port_clock_ms();
    *rc = zm_scout_exchange(&s, &f->addr, p, on_found, found);
    uint64_t took = zm_port_clock_ms() - start;
    zm_port_socket_close(&s);
    return took;
}

/* Every node once, only the kinds asked for, noise skipped; the SCOUT says what and who asks. */
static void test_exchange(void)
{
    fake_t f;
    if (!fake_start(&f, FAKE_BASIC)) {
        return;
    }
    zm_zid_t me = zid_of(0x11, 5);
    found_t found;
    memset(&found, 0, sizeof(found));
    zm_scout_params_t p = {.what = ZM_WHAT_ROUTER | ZM_WHAT_PEER, .zid = &me, .timeout_ms = 300, .cancel = NULL};
    z_result_t rc;
    uint64_t took = scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK(took >= 300);         /* a scout lasts its timeout */
    CHECK(took < 300 + 2000);   /* and no more (bound for a loaded machine) */
    CHECK_EQ_INT(found.n, 3); /* A, B and A's zid elsewhere; C is a client, A's second HELLO a repeat */
    zm_zid_t a = zid_of(0xa0, 16), b = zid_of(0xb0, 3);
    CHECK(zid_eq(&found.zid[0], &a));
    CHECK_EQ_INT(found.whatami[0], ZM_WAI_ROUTER);
    CHECK(zid_eq(&found.zid[1], &b));
    CHECK_EQ_INT(found.whatami[1], ZM_WAI_PEER);
    CHECK(zid_eq(&found.zid[2], &a));
    CHECK_EQ_INT(found.first_locator_count, 2);
    CHECK_EQ_STR(found.first_locators[0], FAKE_LOCATOR);
    CHECK_EQ_STR(found.first_locators[1], "udp/127.0.0.1:7447");
    CHECK_EQ_INT(atomic_load(&f.scouts), 1);
    CHECK_EQ_INT(f.first.version, ZM_PROTO_VERSION);
    CHECK_EQ_INT(f.first.what, ZM_WHAT_ROUTER | ZM_WHAT_PEER);
    CHECK(f.first.has_zid && zid_eq(&f.first.zid, &me));

    /* clients only: C alone; no zid in the SCOUT when none is given, as Rust's */
    memset(&found, 0, sizeof(found));
    p.what = ZM_WHAT_CLIENT;
    p.zid = NULL;
    atomic_store(&f.scouts, 0);
    (void)scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(found.n, 1);
    CHECK_EQ_INT(found.whatami[0], ZM_WAI_CLIENT);
    CHECK_EQ_INT(atomic_load(&f.scouts), 1);
    CHECK(!f.first.has_zid);
    CHECK_EQ_INT(f.first.what, ZM_WHAT_CLIENT);

    /* the callback ends it at the first node: no need to wait for the timeout */
    memset(&found, 0, sizeof(found));
    found.stop_after = 1;
    p.what = ZM_WHAT_ROUTER | ZM_WHAT_PEER;
    p.timeout_ms = 60000;
    took = scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(found.n, 1);
    CHECK(took < 5000);

    /* a first callback that outlasts the scout: the HELLOs that came meanwhile still count */
    memset(&found, 0, sizeof(found));
    found.first_wait_ms = 500;
    p.timeout_ms = 100;
    atomic_store(&f.scouts, 0);
    took = scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(found.n, 3);
    CHECK(took >= 500 && took < 500 + 2000);
    CHECK_EQ_INT(atomic_load(&f.scouts), 1); /* none past the deadline */
    fake_stop(&f);
}

/* A SCOUT lost (or unanswered) is sent again a second later, as Rust does: the second is answered. */
static void test_resend(void)
{
    fake_t f;
    if (!fake_start(&f, FAKE_SECOND)) {
        return;
    }
    found_t found;
    memset(&found, 0, sizeof(found));
    found.stop_after = 1;
    zm_scout_params_t p = {.what = ZM_WHAT_ROUTER, .zid = NULL, .timeout_ms = 5000, .cancel = NULL};
    z_result_t rc;
    uint64_t took = scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(found.n, 1);
    CHECK_EQ_INT(atomic_load(&f.scouts), 2);
    CHECK(took >= 1000); /* the second SCOUT goes a second after the first */
    fake_stop(&f);

    /* unanswered: 0 s, 1 s, 3 s (then 7 s, 15 s, 23 s...) within a 3.5 s scout */
    if (!fake_start(&f, FAKE_SILENT)) {
        return;
    }
    memset(&found, 0, sizeof(found));
    p.timeout_ms = 3500;
    (void)scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(found.n, 0);
    CHECK_EQ_INT(atomic_load(&f.scouts), 3);
    fake_stop(&f);
}

/* HELLOs coming faster than they are read hold the scout no longer than its timeout, and each
 * node is reported once as long as the table of nodes has room. */
static void test_hello_flood(void)
{
    fake_t f;
    if (!fake_start(&f, FAKE_FLOOD)) {
        return;
    }
    static found_t found;
    memset(&found, 0, sizeof(found));
    zm_scout_params_t p = {.what = ZM_WHAT_PEER, .zid = NULL, .timeout_ms = 400, .cancel = NULL};
    z_result_t rc;
    uint64_t took = scout_against(&f, &p, &found, &rc);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK(took < 400 + 1000); /* the flood goes on for FLOOD_MS: the scout does not wait for its end */
    CHECK(atomic_load(&f.flooded) > FLOOD_ZIDS);
    CHECK(found.n >= ZM_SCOUT_SEEN_MAX);
    /* the nodes it remembers come once each; past the table, a node may come again */
    for (unsigned i = 0; i < ZM_SCOUT_SEEN_MAX && i < found.n; i++) {
        unsigned seen = 0;
        for (unsigned k = 0; k < found.n && k < 256; k++) {
            seen += zid_eq(&found.zid[k], &found.zid[i]);
        }
        CHECK_CTX(seen == 1, "node %u reported %u times", i, seen);
    }
    fake_stop(&f);
}

typedef struct {
    atomic_bool flag;
    zm_task_t task;
} canceller_t;

static void *cancel_main(void *arg)
{
    canceller_t *c = arg;
    zm_port_sleep_ms(200); /* the scout is under way by then; any moment would do */
    atomic_store(&c->flag, true);
    return NULL;
}

/* A scout that may be cancelled (a closing session's) ends soon after, not at its timeout. */
static void test_cancel(void)
{
    fake_t f;
    if (!fake_start(&f, FAKE_SILENT)) {
        return;
    }
    canceller_t c;
    atomic_init(&c.flag, false);
    CHECK_EQ_INT(zm_port_task_start(&c.task, cancel_main, &c), Z_OK);
    found_t found;
    memset(&found, 0, sizeof(found));
    zm_scout_params_t p = {.what = ZM_WHAT_ROUTER, .zid = NULL, .timeout_ms = 60000, .cancel = &c.flag};
    z_result_t rc;
    uint64_t took = scout_against(&f, &p, &found, &rc);
    zm_port_task_join(&c.task);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK(took < 10000);
    fake_stop(&f);
}

/* ---- the responder ------------------------------------------------------------------------------- */

/* Reads one datagram within ms and decodes it as a HELLO into *h (borrowing buf). */
static bool read_hello(zm_socket_t *s, uint8_t *buf, size_t cap, uint32_t ms, zm_hello_t *h)
{
    if (zm_port_socket_wait_readable(s, ms) != Z_OK) {
        return false;
    }
    size_t n = 0;
    if (zm_port_udp_recv(s, buf, cap, &n, NULL) != Z_OK) {
        return false;
    }
    zm_reader_t r;
    zm_reader_init(&r, buf, n);
    zm_scouting_msg_t m;
    if (zm_scouting_decode(&r, &m) != Z_OK || m.id != ZM_MID_HELLO) {
        return false;
    }
    *h = m.body.hello;
    return true;
}

/* The locators of a HELLO joined by spaces. */
static void locators_text(const zm_hello_t *h, char *out, size_t cap)
{
    zm_reader_t it;
    zm_reader_init(&it, h->locators.ptr, h->locators.len);
    size_t pos = 0;
    out[0] = '\0';
    zm_slice_t loc;
    bool got = true;
    while (zm_locators_next(&it, &loc, &got) == Z_OK && got && pos + loc.len + 2 < cap) {
        if (pos > 0) {
            out[pos++] = ' ';
        }
        memcpy(out + pos, loc.ptr, loc.len);
        pos += loc.len;
        out[pos] = '\0';
    }
}

static void test_responder(void)
{
    zm_socket_t rs, scout;
    zm_addr_t raddr, saddr;
    if (!udp_local(&rs, &raddr) || !udp_local(&scout, &saddr)) {
        CHECK(false);
        return;
    }
    zm_scout_responder_t r;
    zm_scout_responder_init(&r, rs);
    const char *locators[] = {"tcp/0.0.0.0:7447", "tcp/127.0.0.1:7448", "tcp/10.1.2.3:7449", "serial/dev/ttyS0"};
    zm_scout_self_t self = {.whatami = ZM_WAI_PEER, .zid = zid_of(0x42, 16), .locators = locators, .n_locators = 4};
    uint8_t buf[512];
    unsigned answered = 99;

    /* nothing waiting: nothing done, at once */
    CHECK_EQ_INT(zm_scout_responder_serve(&r, &self, &answered), Z_OK);
    CHECK_EQ_INT(answered, 0);

    /* a SCOUT for peers: one HELLO back to its sender, the unspecified address made real */
    zm_zid_t other = zid_of(0x70, 4);
    send_to(&scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_ROUTER | ZM_WHAT_PEER, &other), &raddr);
    CHECK_EQ_INT(zm_port_socket_wait_readable(&r.link.sock, 2000), Z_OK);
    CHECK_EQ_INT(zm_scout_responder_serve(&r, &self, &answered), Z_OK);
    CHECK_EQ_INT(answered, 1);
    zm_hello_t h;
    CHECK(read_hello(&scout, buf, sizeof(buf), 2000, &h));
    CHECK_EQ_INT(h.whatami, ZM_WAI_PEER);
    CHECK(zid_eq(&h.zid, &self.zid));
    CHECK_EQ_INT(h.locator_count, 3); /* the serial line is no address on this network */
    char text[256];
    locators_text(&h, text, sizeof(text));
    CHECK_EQ_STR(text, "tcp/127.0.0.1:7447 tcp/127.0.0.1:7448 tcp/10.1.2.3:7449");

    /* neither SCOUTs for others, nor our own, nor HELLOs, noise or giants get an answer */
    send_to(&scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_ROUTER, NULL), &raddr);
    send_to(&scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_PEER, &self.zid), &raddr);
    send_to(&scout, buf, hello_bytes(buf, sizeof(buf), &other, ZM_WAI_PEER, NULL, NULL), &raddr);
    static const uint8_t junk[] = {0x01};
    send_to(&scout, junk, sizeof(junk), &raddr);
    memset(buf, 0x01, sizeof(buf));
    send_to(&scout, buf, sizeof(buf), &raddr);
    send_to(&scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_PEER, NULL), &raddr); /* this one counts */
    unsigned total = 0;
    for (int i = 0; i < 50 && total < 1; i++) {
        (void)zm_port_socket_wait_readable(&r.link.sock, 100);
        CHECK_EQ_INT(zm_scout_responder_serve(&r, &self, &answered), Z_OK);
        total += answered;
    }
    CHECK_EQ_INT(total, 1);
    CHECK(read_hello(&scout, buf, sizeof(buf), 2000, &h));
    CHECK(zm_port_socket_wait_readable(&scout, 100) == ZM_E_TIMEOUT); /* and nothing more */

    /* a flood: at most a burst read per call, at most a second's worth of answers at once and
     * then ZM_SCOUT_ANSWER_RATE a second (two were answered above), the rest dropped */
    enum { FLOOD = 100 };
    uint64_t t0 = zm_port_clock_ms();
    for (int i = 0; i < FLOOD; i++) {
        send_to(&scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_PEER, NULL), &raddr);
    }
    total = 0;
    while (zm_port_socket_wait_readable(&r.link.sock, 100) == Z_OK) {
        CHECK_EQ_INT(zm_scout_responder_serve(&r, &self, &answered), Z_OK);
        CHECK(answered <= ZM_SCOUT_ANSWER_BURST);
        total += answered;
    }
    uint64_t took = zm_port_clock_ms() - t0;
    CHECK_CTX(total >= ZM_SCOUT_ANSWER_RATE - 2u, "%u answered", total);
    CHECK_CTX(total <= ZM_SCOUT_ANSWER_RATE + 1u + took * ZM_SCOUT_ANSWER_RATE / 1000u, "%u answered in %u ms", total,
              (unsigned)took);
    unsigned hellos = 0;
    while (read_hello(&scout, buf, sizeof(buf), 500, &h)) {
        hellos++;
    }
    CHECK_EQ_INT(hellos, total);

    /* a second later, the bucket is full again */
    zm_port_sleep_ms(1000u);
    send_to(&scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_PEER, NULL), &raddr);
    CHECK_EQ_INT(zm_port_socket_wait_readable(&r.link.sock, 2000), Z_OK);
    CHECK_EQ_INT(zm_scout_responder_serve(&r, &self, &answered), Z_OK);
    CHECK_EQ_INT(answered, 1);
    CHECK(read_hello(&scout, buf, sizeof(buf), 2000, &h));

    /* shut down: serving says so */
    zm_scout_responder_shutdown(&r);
    CHECK_EQ_INT(zm_scout_responder_serve(&r, &self, &answered), ZM_E_CLOSED);
    zm_scout_responder_close(&r);
    zm_port_socket_close(&scout);
}

/* ---- a session's responder ----------------------------------------------------------------------- */

static zm_session_config_t peer_config(const char *listen, const char *scout_locator)
{
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.listen[0] = listen;
    c.n_listen = listen != NULL ? 1 : 0;
    c.scouting = true;
    c.scout_locator = scout_locator;
    c.scout_what = ZM_WHAT_ROUTER | ZM_WHAT_PEER;
    c.scout_timeout_ms = 1000;
    return c;
}

/* One SCOUT to the session's responder, its HELLO's locators back into text (false: none came). */
static bool ask(zm_session_t *s, zm_socket_t *scout, const zm_addr_t *to, char *text, size_t cap, bool drive)
{
    uint8_t buf[512];
    send_to(scout, buf, scout_bytes(buf, sizeof(buf), ZM_WHAT_PEER, NULL), to);
    zm_hello_t h;
    for (int i = 0; i < 20; i++) {
        if (drive) {
            CHECK_EQ_INT(zm_session_read(s, 100), Z_OK); /* zp_read's path */
        }
        if (read_hello(scout, buf, sizeof(buf), 100, &h)) {
            CHECK(zid_eq(&h.zid, &s->zid));
            locators_text(&h, text, cap);
            return true;
        }
    }
    return false;
}

static void test_session_responder(void)
{
    /* listening on loopback only: it stays off the network, no group joined */
    zm_session_config_t c = peer_config("tcp/127.0.0.1:0", Z_CONFIG_MULTICAST_LOCATOR_DEFAULT);
    zm_session_t *s = NULL;
    CHECK_EQ_INT(zm_session_open(&s, &c), Z_OK);
    if (s == NULL) {
        return;
    }
    CHECK(!s->responding);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&s->listener, &port), Z_OK);
    char want[64];
    snprintf(want, sizeof(want), "tcp/127.0.0.1:%u", port);
    CHECK_EQ_STR(s->announced, want); /* the port it got, not 0 */

    /* the same responder over a unicast socket, served by zm_session_read, then by the accept task */
    zm_socket_t rs, scout;
    zm_addr_t raddr, saddr;
    if (!udp_local(&rs, &raddr) || !udp_local(&scout, &saddr)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    zm_scout_responder_init(s->responder, rs);
    s->responding = true;
    char text[256];
    CHECK(ask(s, &scout, &raddr, text, sizeof(text), true));
    CHECK_EQ_STR(text, want);
    CHECK_EQ_INT(zm_session_start_read_task(s), Z_OK);
    CHECK(s->accept_running);
    memset(text, 0, sizeof(text));
    CHECK(ask(s, &scout, &raddr, text, sizeof(text), false));
    CHECK_EQ_STR(text, want);
    zm_session_close(s); /* the accept task, waiting on the responder too, ends */
    zm_port_socket_close(&scout);
}

/* ---- errors before anything is sent ---------------------------------------------------------------- */

static void test_session_errors(void)
{
    zm_session_t *s = NULL;
    /* no endpoint: it would scout; bad locators and interfaces fail before sending */
    zm_session_config_t c = peer_config(NULL, "udp/127.0.0.1:7446");
    c.mode = ZM_MODE_CLIENT;
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_LOCATOR);
    c.scout_locator = "udp/224.0.0.224";
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_LOCATOR);
    c.scout_locator = "udp/224.0.0.224:7446#iface=zmnosuchif0";
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_LOCATOR);
    CHECK(s == NULL);

    /* a peer reachable from other machines answers SCOUTs: a bad group or interface is refused
     * before any socket joins it */
    c = peer_config("tcp/0.0.0.0:0", "udp/10.0.0.1:7446");
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_LOCATOR);
    c.scout_locator = "udp/224.0.0.224:7446#iface=zmnosuchif0";
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_LOCATOR);
    c.scout_locator = "udp/[ff02::1]:7446";
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_UNSUPPORTED);
    CHECK(s == NULL);
}

static void count_hello(z_loaned_hello_t *hello, void *ctx)
{
    ZM_UNUSED(hello);
    (*(int *)ctx) += 100;
}

static void count_drop(void *ctx) { (*(int *)ctx)++; }

typedef struct {
    uint8_t key;
    const char *value;
} setting_t;

/* z_scout with the default configuration and one setting (key 0: none); it must have dropped
 * what it took whatever it returns. */
static z_result_t scout_with(setting_t set, const z_scout_options_t *options, int *calls)
{
    z_owned_config_t config;
    CHECK_EQ_INT(z_config_default(&config), Z_OK);
    if (set.key != 0) {
        CHECK_EQ_INT(zp_config_insert(z_loan_mut(config), set.key, set.value), Z_OK);
    }
    z_owned_closure_hello_t closure;
    CHECK_EQ_INT(z_closure_hello(&closure, count_hello, count_drop, calls), Z_OK);
    z_result_t rc = z_scout(z_move(config), z_move(closure), options);
    CHECK(!z_internal_check(config));
    CHECK(!z_internal_check(closure));
    return rc;
}

static void test_api(void)
{
    long before = live_blocks();
    z_scout_options_t o;
    memset(&o, 0xff, sizeof(o));
    z_scout_options_default(&o);
    CHECK_EQ_INT(o.timeout_ms, 1000);
    CHECK_EQ_INT(o.what, Z_WHAT_ROUTER_PEER);

    /* each fails before anything is sent, and the closure is dropped once, with no hello */
    static const struct {
        setting_t set;
        bool with_options;
        z_result_t rc;
    } cases[] = {
        {{Z_CONFIG_MULTICAST_LOCATOR_KEY, "udp/192.168.1.1:7446"}, false, ZM_E_LOCATOR},
        {{Z_CONFIG_MULTICAST_LOCATOR_KEY, "udp/224.0.0.224:7446#iface=zmnosuchif0"}, true, ZM_E_LOCATOR},
        {{Z_CONFIG_MULTICAST_LOCATOR_KEY, "udp/224.0.0.224:7446#ttl=4"}, false, ZM_E_UNSUPPORTED},
        {{Z_CONFIG_SCOUTING_WHAT_KEY, "9"}, false, Z_EINVAL},
        {{Z_CONFIG_SCOUTING_WHAT_KEY, "0"}, false, Z_EINVAL},
        {{Z_CONFIG_SCOUTING_TIMEOUT_KEY, "1s"}, false, Z_EINVAL},
        {{Z_CONFIG_SESSION_ZID_KEY, "xyz"}, false, Z_EINVAL},
    };
    for (size_t i = 0; i < ZM_ARRAY_LEN(cases); i++) {
        int calls = 0;
        z_result_t rc = scout_with(cases[i].set, cases[i].with_options ? &o : NULL, &calls);
        CHECK_CTX(rc == cases[i].rc, "case %u: %d instead of %d", (unsigned)i, rc, cases[i].rc);
        CHECK_EQ_INT(calls, 1);
    }
    int calls = 0;
    z_scout_options_t none = {.timeout_ms = 10, .what = (z_what_t)0};
    CHECK_EQ_INT(scout_with((setting_t){0, NULL}, &none, &calls), Z_EINVAL);
    CHECK_EQ_INT(calls, 1);

    /* NULL arguments: what was given is dropped all the same */
    z_owned_config_t config;
    CHECK_EQ_INT(z_config_default(&config), Z_OK);
    CHECK_EQ_INT(z_scout(z_move(config), NULL, NULL), Z_EINVAL);
    CHECK(!z_internal_check(config));
    z_owned_closure_hello_t closure;
    calls = 0;
    CHECK_EQ_INT(z_closure_hello(&closure, count_hello, count_drop, &calls), Z_OK);
    CHECK_EQ_INT(z_scout(NULL, z_move(closure), NULL), Z_EINVAL);
    CHECK_EQ_INT(calls, 1);

    /* z_open without locators: scouting values are checked, a bad locator refused */
    z_owned_session_t zs;
    CHECK_EQ_INT(z_config_default(&config), Z_OK);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_MULTICAST_SCOUTING_KEY, "yes");
    CHECK_EQ_INT(z_open(&zs, z_move(config), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_config_default(&config), Z_OK);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_MULTICAST_LOCATOR_KEY, "udp/224.0.0.224:7446#iface=zmnosuchif0");
    CHECK_EQ_INT(z_open(&zs, z_move(config), NULL), ZM_E_LOCATOR);
    CHECK(!z_internal_check(zs));
    CHECK_EQ_INT(z_config_default(&config), Z_OK);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_SCOUTING_TIMEOUT_KEY, "-1");
    CHECK_EQ_INT(z_open(&zs, z_move(config), NULL), Z_EINVAL);
    CHECK_EQ_INT(live_blocks(), before);
}

int main(void)
{
    static const zm_allocator_t counting = {counting_alloc, counting_free, NULL};
    zm_allocator_set(&counting);
    test_group_parse();
    test_dialable();
    test_exchange();
    test_resend();
    test_hello_flood();
    test_cancel();
    test_responder();
    test_session_responder();
    test_session_errors();
    test_api();
    return CHECK_DONE();
}

#else
int main(void)
{
    printf("test_scout: skipped (a build without scouting, threads or peers)\n");
    return 0;
}
#endif
