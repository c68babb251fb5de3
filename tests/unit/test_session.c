/*
 * Sessions end to end in one process over loopback TCP: a listening peer and a connecting
 * peer, subscribers declared before and after the connection, local delivery, undeclare,
 * and the declarations a new peer is sent. Waits are on condvars with deadlines.
 */
#include <stdio.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "session/session.h"
#include "util/alloc.h"
#include "zmote/port.h"

typedef struct {
    zm_mutex_t lock;
    zm_condvar_t cond;
    unsigned count;
    unsigned puts, deletes;
    char last_key[64];
    size_t last_len;
    bool bad;
    unsigned drops;
} inbox_t;

static void inbox_init(inbox_t *in)
{
    memset(in, 0, sizeof(*in));
    CHECK_EQ_INT(zm_port_mutex_init(&in->lock), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&in->cond), Z_OK);
}

static void on_sample(const zm_sample_t *smp, void *ctx)
{
    inbox_t *in = ctx;
    zm_port_mutex_lock(&in->lock);
    for (size_t i = 0; i < smp->payload.len; i++) {
        if (smp->payload.ptr[i] != (uint8_t)(i + smp->payload.len)) {
            in->bad = true;
        }
    }
    size_t n = smp->key_len < sizeof(in->last_key) ? smp->key_len : sizeof(in->last_key) - 1;
    memcpy(in->last_key, smp->key, n);
    in->last_key[n] = '\0';
    in->last_len = smp->payload.len;
    in->count++;
    if (smp->kind == ZM_SAMPLE_PUT) {
        in->puts++;
    } else {
        in->deletes++;
    }
    zm_port_condvar_broadcast(&in->cond);
    zm_port_mutex_unlock(&in->lock);
}

static void on_drop(void *ctx)
{
    inbox_t *in = ctx;
    in->drops++;
}

static bool wait_for(inbox_t *in, unsigned n, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    zm_port_mutex_lock(&in->lock);
    while (in->count < n && zm_port_condvar_wait_until(&in->cond, &in->lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool ok = in->count >= n;
    zm_port_mutex_unlock(&in->lock);
    return ok;
}

/* in's count, read under its lock: a read task may be delivering to it meanwhile. */
static unsigned count_of(inbox_t *in)
{
    zm_port_mutex_lock(&in->lock);
    unsigned n = in->count;
    zm_port_mutex_unlock(&in->lock);
    return n;
}

static uint8_t payload[200000];

/* A put on key, by its id key_id where it was declared (0: by its text). */
static z_result_t put_on(zm_session_t *s, const char *key, uint16_t key_id, size_t size, uint8_t kind)
{
    for (size_t i = 0; i < size; i++) {
        payload[i] = (uint8_t)(i + size);
    }
    zm_put_args_t a;
    zm_put_args_init(&a, key, strlen(key));
    a.key_id = key_id;
    a.kind = kind;
    a.body.payload = zm_slice(payload, size);
    return zm_session_put(s, &a);
}

static z_result_t put(zm_session_t *s, const char *key, size_t size, uint8_t kind)
{
    return put_on(s, key, 0, size, kind);
}

/* A peer-mode configuration with its tasks, listening on or connecting to one endpoint. */
static zm_session_config_t peer_config(const char *listen, const char *connect)
{
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.start_tasks = true;
    if (listen != NULL) {
        c.listen[0] = listen;
        c.n_listen = 1;
    }
    if (connect != NULL) {
        c.connect[0] = connect;
        c.n_connect = 1;
    }
    return c;
}

static uint16_t listening_port(void)
{
    /* a free port: bind to 0, read it back, release it */
    zm_socket_t sock;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&sock, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&sock, &port), Z_OK);
    zm_port_socket_close(&sock);
    return port;
}

/* Waits until pred holds for the sessions, bounded: declarations travel asynchronously. */
static bool eventually(bool (*pred)(zm_session_t *, const char *), zm_session_t *s, const char *key, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    while (!pred(s, key)) {
        if (zm_port_clock_ms() > deadline) {
            return false;
        }
        zm_port_sleep_ms(5); /* polling a state that has no event of its own */
    }
    return true;
}

static inbox_t *probe_inbox;
static unsigned probe_before;
static uint16_t probe_key_id; /* the probe's key declared, to put by its id (a publisher's stream), or 0 */

/* A put from s on key reaches probe_inbox. */
static bool put_arrives(zm_session_t *s, const char *key)
{
    probe_before = count_of(probe_inbox);
    if (put_on(s, key, probe_key_id, 8, ZM_SAMPLE_PUT) != Z_OK) {
        return false;
    }
    return wait_for(probe_inbox, probe_before + 1, 100);
}

/* Two peers, a listening on a free port and b connected to it; false (none left open) if either
 * did not open. */
static bool open_pair(zm_session_t **a, zm_session_t **b)
{
    char listen[64], connect[64];
    uint16_t port = listening_port();
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", port);
    snprintf(connect, sizeof(connect), "tcp/127.0.0.1:%u", port);
    zm_session_config_t ca = peer_config(listen, NULL);
    zm_session_config_t cb = peer_config(NULL, connect);
    *a = *b = NULL;
    CHECK_EQ_INT(zm_session_open(a, &ca), Z_OK);
    CHECK_EQ_INT(zm_session_open(b, &cb), Z_OK);
    if (*a == NULL || *b == NULL) {
        zm_session_close(*b);
        zm_session_close(*a);
        return false;
    }
    return true;
}

static void test_peer_to_peer(void)
{
    char listen[64], connect[64];
    uint16_t port = listening_port();
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", port);
    snprintf(connect, sizeof(connect), "tcp/127.0.0.1:%u", port);

    zm_session_config_t ca = peer_config(listen, NULL);
    zm_session_t *a = NULL, *b = NULL;
    CHECK_EQ_INT(zm_session_open(&a, &ca), Z_OK);
    if (a == NULL) {
        return;
    }
    inbox_t ina, inb, inlocal;
    inbox_init(&ina);
    inbox_init(&inb);
    inbox_init(&inlocal);
    uint32_t sub_a = 0, sub_b = 0, sub_local = 0;
    /* declared before the other peer exists: it must learn it at connection */
    CHECK_EQ_INT(zm_session_declare_subscriber(a, "demo/**", 7, ZM_LOCALITY_ANY, on_sample, on_drop, &ina, &sub_a), Z_OK);

    zm_session_config_t cb = peer_config(NULL, connect);
    CHECK_EQ_INT(zm_session_open(&b, &cb), Z_OK);
    if (b == NULL) {
        zm_session_close(a);
        return;
    }
    probe_inbox = &ina;
    CHECK(eventually(put_arrives, b, "demo/x", 5000));

    /* payload sizes, through batches and fragments, every byte checked */
    unsigned base = ina.count;
    static const size_t sizes[] = {0, 8, 1000, 65536, 200000};
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(put(b, "demo/sizes", sizes[i], ZM_SAMPLE_PUT), Z_OK);
        CHECK(wait_for(&ina, base + (unsigned)i + 1, 5000));
        CHECK_EQ_INT(ina.last_len, sizes[i]);
    }
    CHECK(!ina.bad);
    CHECK_EQ_STR(ina.last_key, "demo/sizes");

    /* a key nobody subscribed to is not sent; a delete is delivered as such */
    CHECK_EQ_INT(put(b, "other/key", 8, ZM_SAMPLE_PUT), Z_OK);
    CHECK_EQ_INT(put(b, "demo/gone", 0, ZM_SAMPLE_DELETE), Z_OK);
    CHECK(wait_for(&ina, base + ZM_ARRAY_LEN(sizes) + 1, 5000));
    CHECK_EQ_STR(ina.last_key, "demo/gone");
    CHECK_EQ_INT(ina.deletes, 1);

    /* the other direction, declared after the connection */
    CHECK_EQ_INT(zm_session_declare_subscriber(b, "back/*", 6, ZM_LOCALITY_ANY, on_sample, on_drop, &inb, &sub_b), Z_OK);
    probe_inbox = &inb;
    CHECK(eventually(put_arrives, a, "back/1", 5000));

    /* local delivery, and a session-local subscriber sees no remote sample */
    CHECK_EQ_INT(zm_session_declare_subscriber(b, "back/**", 7, ZM_LOCALITY_SESSION_LOCAL, on_sample, on_drop, &inlocal,
                                               &sub_local),
                 Z_OK);
    CHECK_EQ_INT(put(b, "back/self", 8, ZM_SAMPLE_PUT), Z_OK);
    CHECK_EQ_INT(inlocal.count, 1); /* delivered on this thread, before put returned */
    unsigned inb_before = inb.count;
    CHECK_EQ_INT(inb.count, inb_before);

    /* undeclare: no callback afterwards, and its drop ran once */
    CHECK_EQ_INT(zm_session_undeclare_subscriber(a, sub_a), Z_OK);
    CHECK_EQ_INT(ina.drops, 1);
    unsigned after = ina.count;
    CHECK_EQ_INT(put(b, "demo/after", 8, ZM_SAMPLE_PUT), Z_OK);
    CHECK_EQ_INT(put(a, "demo/after", 8, ZM_SAMPLE_PUT), Z_OK);
    CHECK_EQ_INT(ina.count, after);
    CHECK_EQ_INT(zm_session_undeclare_subscriber(a, sub_a), Z_EINVAL);

    zm_session_close(b);
    zm_session_close(a);
    CHECK_EQ_INT(inb.drops, 1);
    CHECK_EQ_INT(inlocal.drops, 1);
}

/* A subscriber whose first sample undeclares another one, then itself, from its callback. */
typedef struct {
    zm_session_t *s;
    uint32_t victim, self;
    unsigned calls;
    z_result_t victim_rc, self_rc;
} killer_t;

static void on_sample_kill(const zm_sample_t *smp, void *ctx)
{
    (void)smp;
    killer_t *k = ctx;
    if (k->calls++ == 0) {
        k->victim_rc = zm_session_undeclare_subscriber(k->s, k->victim);
        k->self_rc = zm_session_undeclare_subscriber(k->s, k->self);
    }
}

/*
 * More matching subscribers than one pass of the dispatch pins: each gets every sample once. A
 * callback that undeclares a subscriber pinned with it for the same sample: that one runs no
 * more, its drop runs once; and it undeclares itself without waiting for itself. For a sample
 * from a peer (its read task) and for a local put (the putting thread).
 */
static void test_dispatch_fanout(void)
{
    zm_session_t *a, *b;
    if (!open_pair(&a, &b)) {
        return;
    }
    enum { PLAIN = 7 };
    inbox_t plain, victim;
    inbox_init(&plain);
    inbox_init(&victim);
    uint32_t ids[PLAIN];
    for (size_t i = 0; i < PLAIN; i++) {
        CHECK_EQ_INT(zm_session_declare_subscriber(a, "fan/*", 5, ZM_LOCALITY_ANY, on_sample, on_drop, &plain, &ids[i]),
                     Z_OK);
    }
    probe_inbox = &plain;
    CHECK(eventually(put_arrives, b, "fan/probe", 5000));
    CHECK(wait_for(&plain, PLAIN * ((plain.count + PLAIN - 1) / PLAIN), 5000));

    /* the killer is declared last, so that it comes first, and its victim right after it */
    static const char *const from[] = {"remote", "local"};
    for (size_t round = 0; round < 2; round++) {
        killer_t k = {a, 0, 0, 0, Z_EGENERIC, Z_EGENERIC};
        unsigned victim_count = victim.count, victim_drops = victim.drops;
        CHECK_EQ_INT(zm_session_declare_subscriber(a, "fan/x", 5, ZM_LOCALITY_ANY, on_sample, on_drop, &victim,
                                                   &k.victim),
                     Z_OK);
        CHECK_EQ_INT(zm_session_declare_subscriber(a, "fan/**", 6, ZM_LOCALITY_ANY, on_sample_kill, NULL, &k, &k.self),
                     Z_OK);
        unsigned base = plain.count;
        CHECK_EQ_INT(put(round == 0 ? b : a, "fan/x", 8, ZM_SAMPLE_PUT), Z_OK);
        CHECK(wait_for(&plain, base + PLAIN, 5000));
        CHECK_EQ_INT(put(round == 0 ? b : a, "fan/x", 8, ZM_SAMPLE_PUT), Z_OK);
        CHECK(wait_for(&plain, base + 2 * PLAIN, 5000));
        if (k.calls != 1 || victim.count != victim_count || victim.drops != victim_drops + 1) {
            fprintf(stderr, "%s: killer called %u times, victim %u samples, %u drops\n", from[round], k.calls,
                    victim.count - victim_count, victim.drops - victim_drops);
        }
        CHECK_EQ_INT(k.calls, 1);
        CHECK_EQ_INT(k.victim_rc, Z_OK);
        CHECK_EQ_INT(k.self_rc, Z_OK);
        CHECK_EQ_INT(victim.count, victim_count);
        CHECK_EQ_INT(victim.drops, victim_drops + 1);
        CHECK_EQ_INT(plain.count, base + 2 * PLAIN);
    }
    for (size_t i = 0; i < PLAIN; i++) {
        CHECK_EQ_INT(zm_session_undeclare_subscriber(a, ids[i]), Z_OK);
    }
    CHECK_EQ_INT(plain.drops, PLAIN);
    zm_session_close(b);
    zm_session_close(a);
}

/*
 * A stream on one declared key, while the subscribers it goes to change under it: each sample
 * reaches exactly the subscribers declared at the time, one that comes later from then on, one
 * that goes no more, one on another key never.
 */
static void test_stream_follows_subscribers(void)
{
    zm_session_t *a, *b;
    if (!open_pair(&a, &b)) {
        return;
    }
    inbox_t first, second, other;
    inbox_init(&first);
    inbox_init(&second);
    inbox_init(&other);
    uint32_t id_first = 0, id_second = 0, id_other = 0;
    CHECK_EQ_INT(zm_session_declare_subscriber(a, "memo/**", 7, ZM_LOCALITY_ANY, on_sample, on_drop, &first, &id_first),
                 Z_OK);
    CHECK_EQ_INT(zm_session_declare_keyexpr(b, "memo/k", 6, &probe_key_id), Z_OK);
    probe_inbox = &first;
    CHECK(eventually(put_arrives, b, "memo/k", 5000));
    CHECK_EQ_STR(first.last_key, "memo/k");

    CHECK_EQ_INT(zm_session_declare_subscriber(a, "memo/k", 6, ZM_LOCALITY_ANY, on_sample, on_drop, &second, &id_second),
                 Z_OK);
    CHECK_EQ_INT(zm_session_declare_subscriber(a, "other/*", 7, ZM_LOCALITY_ANY, on_sample, on_drop, &other, &id_other),
                 Z_OK);
    unsigned f = count_of(&first);
    probe_inbox = &second;
    CHECK(put_arrives(b, "memo/k"));
    CHECK(wait_for(&first, f + 1, 5000));
    CHECK(put_arrives(b, "memo/k"));
    CHECK(wait_for(&first, f + 2, 5000));
    CHECK_EQ_INT(count_of(&second), 2);

    CHECK_EQ_INT(zm_session_undeclare_subscriber(a, id_first), Z_OK);
    f = count_of(&first);
    CHECK(put_arrives(b, "memo/k"));
    CHECK_EQ_INT(count_of(&second), 3);
    CHECK_EQ_INT(count_of(&first), f);
    CHECK_EQ_INT(zm_session_undeclare_subscriber(a, id_second), Z_OK);
    CHECK(!put_arrives(b, "memo/k")); /* nobody takes it: nothing arrives in 100 ms */
    CHECK_EQ_INT(count_of(&other), 0);
    CHECK_EQ_INT(zm_session_undeclare_subscriber(a, id_other), Z_OK);
    probe_key_id = 0;
    zm_session_close(b);
    zm_session_close(a);
    CHECK_EQ_INT(first.drops + second.drops + other.drops, 3);
}

static void test_bad_config(void)
{
    zm_session_t *s = (zm_session_t *)1;
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_CLIENT;
    c.connect[0] = "tcp/127.0.0.1";
    c.n_connect = 1;
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_LOCATOR); /* no port */
    c.connect[0] = "tls/127.0.0.1:7447"; /* no TLS in the build, or no root CA configured */
    CHECK_EQ_INT(zm_session_open(&s, &c), Z_FEATURE_LINK_TLS ? ZM_E_TLS_CONFIG : ZM_E_UNSUPPORTED);
    char closed[64];
    snprintf(closed, sizeof(closed), "tcp/127.0.0.1:%u", listening_port());
    c.connect[0] = closed;
    CHECK_EQ_INT(zm_session_open(&s, &c), ZM_E_REFUSED);
    CHECK(s == NULL);
}

/* Sends raw bytes to a listening session and returns how the session answered: ZM_E_CLOSED once
 * it dropped the link. */
static z_result_t poke(uint16_t port, const uint8_t *bytes, size_t len)
{
    zm_socket_t sock;
    z_result_t rc = zm_port_tcp_connect(&sock, "127.0.0.1", port, 2000);
    if (rc != Z_OK) {
        return rc;
    }
    size_t written = 0;
    rc = zm_port_socket_write(&sock, bytes, len, zm_port_clock_ms() + 2000u, &written);
    uint8_t buf[512];
    size_t n = 0;
    uint64_t deadline = zm_port_clock_ms() + ZM_ACCEPT_TIMEOUT_MS + 3000u; /* its handshake timeout, and more */
    while (rc == Z_OK && zm_port_clock_ms() < deadline) {
        if (zm_port_socket_wait_readable(&sock, 200) == Z_OK) {
            rc = zm_port_socket_read(&sock, buf, sizeof(buf), &n);
        }
    }
    zm_port_socket_close(&sock);
    return rc;
}

/* Hostile bytes cost the sender its link and nothing else: the session still serves peers. */
static void test_hostile_peer(void)
{
    char listen[64];
    uint16_t port = listening_port();
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", port);
    zm_session_config_t ca = peer_config(listen, NULL);
    zm_session_t *a = NULL;
    CHECK_EQ_INT(zm_session_open(&a, &ca), Z_OK);
    if (a == NULL) {
        return;
    }
    /* not an INIT: garbage, a length larger than any batch, an INIT with whatami 0b11 */
    static const uint8_t garbage[] = {0x05, 0x00, 0xff, 0xee, 0xdd, 0xcc, 0xbb};
    static const uint8_t huge[] = {0xff, 0xff, 0x01};
    static const uint8_t bad_init[] = {0x05, 0x00, 0x01, 0x09, 0x03, 0x01, 0x02};
    CHECK_EQ_INT(poke(port, garbage, sizeof(garbage)), ZM_E_CLOSED);
    CHECK_EQ_INT(poke(port, huge, sizeof(huge)), ZM_E_CLOSED);
    CHECK_EQ_INT(poke(port, bad_init, sizeof(bad_init)), ZM_E_CLOSED);

    /* a well-behaved peer is still served */
    inbox_t in;
    inbox_init(&in);
    uint32_t sub = 0;
    CHECK_EQ_INT(zm_session_declare_subscriber(a, "x/**", 4, ZM_LOCALITY_ANY, on_sample, on_drop, &in, &sub), Z_OK);
    zm_session_config_t cb = peer_config(NULL, listen);
    zm_session_t *b = NULL;
    CHECK_EQ_INT(zm_session_open(&b, &cb), Z_OK);
    if (b != NULL) {
        probe_inbox = &in;
        CHECK(eventually(put_arrives, b, "x/y", 5000));
        zm_session_close(b);
    }
    zm_session_close(a);
    CHECK_EQ_INT(in.drops, 1);
}

/* An allocator that fails its Nth call (counting from 1; 0: never), over malloc. Installed
 * once before any session, as zm_allocator_set requires; only its counters change. */
static atomic_uint alloc_calls, alloc_fail_at;
static void *failing_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return atomic_fetch_add(&alloc_calls, 1u) + 1u == atomic_load(&alloc_fail_at) ? NULL : malloc(size);
}
static void plain_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

/*
 * Every allocation of a connecting session's life (open, declare, put, undeclare, close), and
 * of the listener's side of it, made to fail in turn: each failure is an error code, nothing
 * leaks (ASan), and the listening session keeps serving the next attempt.
 */
static void test_alloc_failures(void)
{
    static const zm_allocator_t failing = {failing_alloc, plain_free, NULL};
    atomic_store(&alloc_fail_at, 0u);
    zm_allocator_set(&failing);
    char listen[64];
    uint16_t port = listening_port();
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", port);
    zm_session_config_t ca = peer_config(listen, NULL);
    zm_session_t *a = NULL;
    CHECK_EQ_INT(zm_session_open(&a, &ca), Z_OK);
    if (a == NULL) {
        zm_allocator_set(NULL);
        return;
    }
    unsigned total = 0;
    for (unsigned n = 1;; n++) {
        atomic_store(&alloc_calls, 0u);
        atomic_store(&alloc_fail_at, n);
        zm_session_config_t cb = peer_config(NULL, listen);
        zm_session_t *b = NULL;
        z_result_t rc = zm_session_open(&b, &cb);
        if (rc == Z_OK) {
            uint32_t sub = 0;
            inbox_t in;
            inbox_init(&in);
            if (zm_session_declare_subscriber(b, "f/**", 4, ZM_LOCALITY_ANY, on_sample, NULL, &in, &sub) == Z_OK) {
                CHECK_EQ_INT(put(b, "f/x", 8, ZM_SAMPLE_PUT), Z_OK);
                CHECK_EQ_INT(zm_session_undeclare_subscriber(b, sub), Z_OK);
            }
            zm_session_close(b);
            zm_port_condvar_destroy(&in.cond);
            zm_port_mutex_destroy(&in.lock);
        } else {
            CHECK_CTX(rc < 0 && b == NULL, "allocation %u: rc %d", n, rc);
        }
        atomic_store(&alloc_fail_at, 0u);
        total = atomic_load(&alloc_calls);
        if (n > total) {
            break; /* every allocation of the run has failed once */
        }
    }
    CHECK(total > 3);
    /* the listener is still whole */
    inbox_t in;
    inbox_init(&in);
    uint32_t sub = 0;
    CHECK_EQ_INT(zm_session_declare_subscriber(a, "ok/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, &in, &sub), Z_OK);
    zm_session_t *b = NULL;
    zm_session_config_t cb = peer_config(NULL, listen);
    CHECK_EQ_INT(zm_session_open(&b, &cb), Z_OK);
    if (b != NULL) {
        probe_inbox = &in;
        CHECK(eventually(put_arrives, b, "ok/1", 5000));
        zm_session_close(b);
    }
    zm_session_close(a);
    zm_allocator_set(NULL);
}

int main(void)
{
    test_bad_config();
    test_peer_to_peer();
    test_dispatch_fanout();
    test_stream_follows_subscribers();
    test_hostile_peer();
    test_alloc_failures();
    return CHECK_DONE();
}
