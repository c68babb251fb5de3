/*
 * A listening peer against peers that misbehave, in one process over loopback TCP: fake peers
 * built from zmote's own transport declare too much, name invalid keys or only hold a slot, and
 * each of them costs only its own link. Also where puts go: only to peers whose subscribers
 * match, as the declarations come and go. Every wait is bounded; absence of a sample is shown
 * by a later sample on the same channel arriving first.
 */
#include <stdio.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "fake_peer.h"
#include "session/internal.h"
#include "session/session.h"
#include "zmote/port.h"

/* ---- the node under test ------------------------------------------------------------------------ */

typedef struct {
    atomic_uint count;
    char last_key[64];
} inbox_t;

static void on_sample(const zm_sample_t *smp, void *ctx)
{
    inbox_t *in = ctx;
    size_t n = smp->key_len < sizeof(in->last_key) ? smp->key_len : sizeof(in->last_key) - 1;
    memcpy(in->last_key, smp->key, n);
    in->last_key[n] = '\0';
    atomic_fetch_add(&in->count, 1u);
}

static bool wait_count(inbox_t *in, unsigned n, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    while (atomic_load(&in->count) < n) {
        if (zm_port_clock_ms() > deadline) {
            return false;
        }
        zm_port_sleep_ms(2); /* the callback runs on the node's reader: polled, bounded */
    }
    return true;
}

/* The node under test, with a subscriber on everything. */
static zm_session_t *node_open(uint16_t *port, inbox_t *in)
{
    zm_session_t *s = node_listen(port, true);
    CHECK(s != NULL);
    uint32_t id = 0;
    if (s != NULL) {
        CHECK_EQ_INT(zm_session_declare_subscriber(s, "**", 2, ZM_LOCALITY_ANY, on_sample, NULL, in, &id), Z_OK);
    }
    return s;
}

/* The node has read everything f sent before: a put from f reached the node's subscriber. */
static bool fake_synced(fake_t *f, inbox_t *in)
{
    unsigned before = atomic_load(&in->count);
    return fake_put(f, "sync", 4) == Z_OK && wait_count(in, before + 1, 3000);
}

/* ---- tests -------------------------------------------------------------------------------------- */

/* More declarations than ZM_PEER_DECLS_MAX, or more key bytes than ZM_PEER_DECL_BYTES_MAX: closed. */
static void test_declaration_limits(void)
{
    uint16_t port = 0;
    inbox_t in = {0};
    zm_session_t *s = node_open(&port, &in);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    char key[32];
    for (uint32_t i = 0; i < ZM_PEER_DECLS_MAX; i++) {
        int n = snprintf(key, sizeof(key), "k/%u", (unsigned)i);
        CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, i + 1, key, (size_t)n, false), Z_OK);
    }
    CHECK(fake_synced(&f, &in)); /* all within bounds: still served */
    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, 1, "k/again", 7, true), Z_OK); /* a replacement fits */
    CHECK(fake_synced(&f, &in));
    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, ZM_PEER_DECLS_MAX + 1, "k/over", 6, true), Z_OK);
    CHECK(fake_wait_closed(&f, 3000));
    fake_close(&f);

    /* bytes: keys of ZM_KEYEXPR_MAX bytes until their sum is over the bound */
    static char big[ZM_KEYEXPR_MAX];
    memset(big, 'b', sizeof(big));
    CHECK(fake_open(&f, port, 10000));
    uint32_t fit = ZM_PEER_DECL_BYTES_MAX / ZM_KEYEXPR_MAX;
    for (uint32_t i = 0; i < fit; i++) {
        big[0] = (char)('a' + i % 26);
        big[1] = (char)('a' + i / 26 % 26);
        CHECK_EQ_INT(fake_declare(&f, ZM_DECL_KEYEXPR, i + 1, big, sizeof(big), false), Z_OK);
    }
    CHECK(fake_synced(&f, &in));
    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_KEYEXPR, fit + 1, big, sizeof(big), true), Z_OK);
    CHECK(fake_wait_closed(&f, 3000));
    fake_close(&f);

    /* another peer is served as before */
    CHECK(fake_open(&f, port, 10000));
    CHECK(fake_synced(&f, &in));
    fake_close(&f);
    zm_session_close(s);
}

/*
 * A router's declarations are the network's: past ZM_ROUTER_DECLS_MAX they are ignored and its
 * link stays; room made by undeclarations is taken again.
 */
static void test_router_past_its_bound(void)
{
    uint16_t port = 0;
    inbox_t in = {0};
    zm_session_t *s = node_open(&port, &in);
    fake_t f;
    if (s == NULL || !fake_open_as(&f, port, 10000, ZM_WAI_ROUTER)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    char key[32];
    uint32_t over = ZM_ROUTER_DECLS_MAX + 100u;
    for (uint32_t i = 0; i < over; i++) {
        int n = snprintf(key, sizeof(key), "k/%u", (unsigned)i);
        CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, i + 1, key, (size_t)n, i % 64 == 63), Z_OK);
    }
    CHECK(fake_synced(&f, &in)); /* the excess ignored: still served */
    for (uint32_t i = 0; i < 10; i++) {
        CHECK_EQ_INT(fake_declare(&f, ZM_UNDECL_SUBSCRIBER, i + 1, NULL, 0, false), Z_OK);
    }
    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, over + 1, "k/again", 7, true), Z_OK);
    CHECK(fake_synced(&f, &in));
    CHECK(!fake_wait_closed(&f, 200));
    fake_close(&f);
    zm_session_close(s);
}

/* An invalid key, or one longer than ZM_KEYEXPR_MAX, closes the link and reaches nobody. */
static void test_invalid_keys(void)
{
    uint16_t port = 0;
    inbox_t in = {0};
    zm_session_t *s = node_open(&port, &in);
    if (s == NULL) {
        return;
    }
    static char longkey[ZM_KEYEXPR_MAX + 1];
    memset(longkey, 'x', sizeof(longkey));
    const struct {
        const char *key;
        size_t len;
    } bad[] = {{"demo/a//b", 9}, {"demo/", 5}, {"a/**/**", 7}, {"a#b", 3}, {longkey, sizeof(longkey)}};
    for (size_t i = 0; i < ZM_ARRAY_LEN(bad); i++) {
        fake_t f;
        if (!fake_open(&f, port, 10000)) {
            CHECK(false);
            continue;
        }
        CHECK(fake_synced(&f, &in));
        unsigned before = atomic_load(&in.count);
        CHECK_EQ_INT(fake_put(&f, bad[i].key, bad[i].len), Z_OK);
        CHECK(fake_wait_closed(&f, 3000));
        CHECK_EQ_INT(atomic_load(&in.count), before);
        fake_close(&f);
        /* a declaration naming it closes the link too */
        CHECK(fake_open(&f, port, 10000));
        CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, 1, bad[i].key, bad[i].len, true), Z_OK);
        CHECK(fake_wait_closed(&f, 3000));
        fake_close(&f);
    }
    zm_session_close(s);
}

/* Puts on a declared key that went by a publisher's head (zm_session_put_head), not by the parts. */
static unsigned by_head;

/* s puts on key (through its declared key expression key_id, or none), then on "mark": the
 * fake must see the mark; it saw key first iff want. On a declared key, the put goes as a
 * publisher's without options does: by its head where the route kept for the key is current. */
static void check_route(zm_session_t *s, fake_t *f, const char *key, uint16_t key_id, bool want)
{
    unsigned before = fake_pushes(f);
    zm_put_args_t a;
    zm_put_args_init(&a, key, strlen(key));
    a.key_id = key_id;
    a.block = true;
#if ZM_PUT_HEAD
    uint8_t head[ZM_PUT_HEAD_SIZE];
    a.destination = Z_FEATURE_LOCAL_SUBSCRIBER ? ZM_LOCALITY_REMOTE : ZM_LOCALITY_ANY; /* not the node's "**" */
    z_result_t rc = Z_OK;
    if (key_id != 0) {
        zm_session_put_head_make(&a, head);
        CHECK(head[0] != 0);
    }
    if (key_id != 0 && zm_session_put_head(s, key_id, head, zm_slice(NULL, 0), &rc)) {
        by_head++;
        CHECK_EQ_INT(rc, Z_OK);
    } else {
        CHECK_EQ_INT(zm_session_put(s, &a), Z_OK);
    }
#else
    CHECK_EQ_INT(zm_session_put(s, &a), Z_OK);
#endif
    zm_put_args_init(&a, "mark", 4);
    a.block = true;
    CHECK_EQ_INT(zm_session_put(s, &a), Z_OK);
    char got[64];
    CHECK(fake_wait_push(f, before, got, sizeof(got), 3000));
    if (want) {
        CHECK_EQ_STR(got, key_id != 0 ? "" : key); /* with its id, the key travels as the scope */
        CHECK(fake_wait_push(f, before + 1, got, sizeof(got), 3000));
    }
    CHECK_EQ_STR(got, "mark");
}

static void count_remote(const zm_zid_t *zid, void *ctx)
{
    ZM_UNUSED(zid);
    (*(unsigned *)ctx)++;
}

/* The node has n peers connected, within ms. */
static bool wait_peers(zm_session_t *s, unsigned n, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    for (;;) {
        unsigned got = 0;
        zm_session_foreach_remote(s, 0xffu, count_remote, &got);
        if (got == n) {
            return true;
        }
        if (zm_port_clock_ms() > deadline) {
            return false;
        }
        zm_port_sleep_ms(2); /* a peer leaves on the node's reader: polled, bounded */
    }
}

/* Puts reach a peer only while it has a matching subscriber, with a publisher and without. */
static void test_routing(void)
{
    uint16_t port = 0;
    inbox_t in = {0};
    zm_session_t *s = node_open(&port, &in);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    uint32_t pub = 0;
    uint16_t key_id = 0;
    CHECK_EQ_INT(zm_session_declare_keyexpr(s, "pub/key", 7, &key_id), Z_OK);
    CHECK_EQ_INT(zm_session_declare_publisher(s, key_id, &pub), Z_OK);
    char key[32];
    for (uint32_t i = 0; i < 200; i++) {
        int n = snprintf(key, sizeof(key), "other/%u", (unsigned)i);
        CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, i + 1, key, (size_t)n, false), Z_OK);
    }
    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, 1000, "mark", 4, false), Z_OK);
    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_FINAL, 0, NULL, 0, true), Z_OK);
    CHECK(fake_synced(&f, &in));
    check_route(s, &f, "pub/key", key_id, false);
    check_route(s, &f, "pub/key", 0, false);
    check_route(s, &f, "pub/other", 0, false);

    CHECK_EQ_INT(fake_declare(&f, ZM_DECL_SUBSCRIBER, 2000, "pub/*", 5, true), Z_OK);
    CHECK(fake_synced(&f, &in));
    check_route(s, &f, "pub/key", 0, true);
    check_route(s, &f, "pub/other", 0, true);
    unsigned before = fake_pushes(&f);
    check_route(s, &f, "pub/key", key_id, true); /* sent with its id: the key is the scope */
    CHECK(fake_pushes(&f) == before + 2);

    /* a publisher declared now counts the subscribers already there */
    uint32_t pub2 = 0;
    uint16_t key_id2 = 0;
    CHECK_EQ_INT(zm_session_declare_keyexpr(s, "pub/late", 8, &key_id2), Z_OK);
    CHECK_EQ_INT(zm_session_declare_publisher(s, key_id2, &pub2), Z_OK);
    before = fake_pushes(&f);
    check_route(s, &f, "pub/late", key_id2, true);
    CHECK(fake_pushes(&f) == before + 2);

    /* the peers of a declared key's puts are kept while nothing changes: a newcomer, whose
     * subscribers are not known yet, gets them at once, and one that left is sent nothing more */
    check_route(s, &f, "pub/key", key_id, true);
    fake_t g;
    if (fake_open(&g, port, 10000)) {
        CHECK(fake_synced(&g, &in));
        check_route(s, &g, "pub/key", key_id, true);
        check_route(s, &g, "pub/key", key_id, true);
        fake_close(&g);
        CHECK(wait_peers(s, 1, 3000));
    } else {
        CHECK(false);
    }
    check_route(s, &f, "pub/key", key_id, true);
    check_route(s, &f, "pub/key", key_id, true);

    CHECK_EQ_INT(fake_declare(&f, ZM_UNDECL_SUBSCRIBER, 2000, NULL, 0, true), Z_OK);
    CHECK(fake_synced(&f, &in));
    check_route(s, &f, "pub/key", key_id, false);
    check_route(s, &f, "pub/key", key_id, false);
    check_route(s, &f, "pub/late", key_id2, false);
    check_route(s, &f, "pub/key", 0, false);
    check_route(s, &f, "pub/other", 0, false);
    zm_session_undeclare_publisher(s, pub2);
    CHECK_EQ_INT(zm_session_undeclare_keyexpr(s, key_id2), Z_OK);
    zm_session_undeclare_publisher(s, pub);
    CHECK_EQ_INT(zm_session_undeclare_keyexpr(s, key_id), Z_OK);
    fake_close(&f);
    zm_session_close(s);
    /* the second put on a key after each change of targets went by the head (the first keeps
     * the route): after the newcomer left, after the undeclaration, and before */
    CHECK(!ZM_PUT_HEAD || !Z_FEATURE_MULTI_THREAD || by_head >= 3);
}

/* A full table of peers that only hold their slot (with an absurd lease) lets a real one in. */
static void test_squatters(void)
{
    uint16_t port = 0;
    inbox_t in = {0};
    zm_session_t *s = node_open(&port, &in);
    if (s == NULL) {
        return;
    }
    static fake_t squat[ZM_PEERS_MAX];
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        CHECK(fake_open(&squat[i], port, UINT32_MAX)); /* 49 days, far past ZM_LEASE_MAX_MS */
    }
    fake_t real;
    CHECK(fake_open(&real, port, 10000));
    CHECK(fake_synced(&real, &in));
    unsigned closed = 0;
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        closed += fake_wait_closed(&squat[i], i == 0 ? 3000 : 0);
    }
    CHECK_EQ_INT(closed, 1); /* the oldest, and only it */
    fake_close(&real);
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        fake_close(&squat[i]);
    }
    zm_session_close(s);
}

/* Drives a node without tasks until in has n samples, or ms passed; each read is bounded. */
static bool read_until(zm_session_t *s, inbox_t *in, unsigned n, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    while (atomic_load(&in->count) < n && zm_port_clock_ms() < deadline) {
        uint64_t t0 = zm_port_clock_ms();
        CHECK_EQ_INT(zm_session_read(s, 20), Z_OK);
        CHECK(zm_port_clock_ms() - t0 < 1000u); /* never held by a peer */
    }
    return atomic_load(&in->count) >= n;
}

typedef struct {
    fake_t *f;
    uint16_t port;
    atomic_bool done;
    bool ok;
} opener_t;

static void *open_main(void *arg)
{
    opener_t *o = arg;
    o->ok = fake_open(o->f, o->port, 10000);
    atomic_store(&o->done, true);
    return NULL;
}

/* Opens a fake peer on a node without tasks: its handshake progresses as the node reads. */
static bool open_while_reading(zm_session_t *s, fake_t *f, uint16_t port)
{
    opener_t o = {f, port, false, false};
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, open_main, &o), Z_OK);
    uint64_t deadline = zm_port_clock_ms() + 5000u;
    while (!atomic_load(&o.done) && zm_port_clock_ms() < deadline) {
        uint64_t t0 = zm_port_clock_ms();
        CHECK_EQ_INT(zm_session_read(s, 10), Z_OK);
        CHECK(zm_port_clock_ms() - t0 < 1000u);
    }
    zm_port_task_join(&task);
    return o.ok;
}

/* Driven by zp_read alone (no tasks), a node is not held by a peer that sends half a batch. */
static void test_single_thread_read(void)
{
    uint16_t port = 0;
    inbox_t in = {0};
    uint32_t id = 0;
    zm_session_t *s = node_listen(&port, false);
    CHECK(s != NULL);
    if (s == NULL) {
        return;
    }
    CHECK_EQ_INT(zm_session_declare_subscriber(s, "**", 2, ZM_LOCALITY_ANY, on_sample, NULL, &in, &id), Z_OK);
    fake_t slow, good;
    bool slow_ok = open_while_reading(s, &slow, port);
    bool good_ok = slow_ok && open_while_reading(s, &good, port);
    CHECK(slow_ok && good_ok);
    if (good_ok) {
        /* the first byte of a batch's length, and nothing more */
        static const uint8_t half[1] = {0x10};
        size_t written = 0;
        CHECK_EQ_INT(zm_port_socket_write(&slow.t.link.sock, half, 1, zm_port_clock_ms() + 1000u, &written), Z_OK);
        for (int i = 0; i < 5; i++) { /* reads that meet the half batch return all the same */
            uint64_t t0 = zm_port_clock_ms();
            CHECK_EQ_INT(zm_session_read(s, 20), Z_OK);
            CHECK(zm_port_clock_ms() - t0 < 1000u);
        }
        CHECK_EQ_INT(fake_put(&good, "st/x", 4), Z_OK);
        CHECK(read_until(s, &in, 1, 3000));
        fake_close(&good);
    }
    if (slow_ok) {
        fake_close(&slow);
    }
    zm_session_close(s);
}

/* The peers s has now (a dialler's are there once its open returned). */
static unsigned remotes(zm_session_t *s)
{
    unsigned n = 0;
    zm_session_foreach_remote(s, 0xffu, count_remote, &n);
    return n;
}

/* A session holds the slots it can use: a listening peer ZM_PEERS_MAX, a peer that only dials one
 * per endpoint (each filled), a client one; the group's only with a multicast endpoint. */
static void test_slots(void)
{
    uint16_t port[2] = {0, 0};
    zm_session_t *l[2] = {node_listen(&port[0], true), node_listen(&port[1], true)};
    CHECK(l[0] != NULL && l[1] != NULL);
    if (l[0] == NULL || l[1] == NULL) {
        zm_session_close(l[0]);
        zm_session_close(l[1]);
        return;
    }
    char ep[2][64];
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.start_tasks = true;
    for (size_t i = 0; i < 2; i++) {
        snprintf(ep[i], sizeof(ep[i]), "tcp/127.0.0.1:%u", port[i]);
        c.connect[i] = ep[i];
    }
    c.n_connect = ZM_PEERS_MAX < 2 ? 1 : 2;
    zm_session_t *d = NULL;
    CHECK_EQ_INT(zm_session_open(&d, &c), Z_OK);
    c.mode = ZM_MODE_CLIENT;
    zm_session_t *k = NULL;
    CHECK_EQ_INT(zm_session_open(&k, &c), Z_OK);
    if (d != NULL && k != NULL) {
        CHECK_EQ_INT(remotes(d), c.n_connect);
        CHECK_EQ_INT(remotes(k), 1);
#if ZM_SLOTS_SIZED
        CHECK_EQ_INT(zm_slots(l[0]), ZM_PEERS_MAX);
        CHECK_EQ_INT(zm_slots(d), c.n_connect);
        CHECK_EQ_INT(zm_slots(k), 1);
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT
        zm_link_t link;
        memset(&link, 0, sizeof(link));
        CHECK_EQ_INT(zm_mcast_join_link(d, &link), ZM_E_UNSUPPORTED); /* no room for a group */
#endif
    }
    zm_session_close(k);
    zm_session_close(d);
    zm_session_close(l[0]);
    zm_session_close(l[1]);
}

int main(void)
{
    test_declaration_limits();
    test_router_past_its_bound();
    test_invalid_keys();
    test_routing();
    test_single_thread_read();
    test_slots();
#if ZM_PEER_EVICT
    test_squatters();
#endif
    return CHECK_DONE();
}
