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
#include "session/session.h"
#include "transport/transport.h"
#include "zmote/port.h"

/* ---- a fake peer ------------------------------------------------------------------------------ */

typedef struct {
    zm_transport_t t;
    zm_task_t reader;
    zm_mutex_t lock;
    zm_condvar_t cond;
    bool closed;
    unsigned pushes;
    char keys[8][64]; /* key of push i in keys[i % 8] */
} fake_t;

static void fake_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)t;
    (void)reliable;
    fake_t *f = ctx;
    if (m->id != ZM_MID_N_PUSH) {
        return;
    }
    zm_port_mutex_lock(&f->lock);
    const zm_slice_t *k = &m->body.push.wire_expr.suffix;
    char *key = f->keys[f->pushes % 8];
    size_t n = k->len < sizeof(f->keys[0]) ? k->len : sizeof(f->keys[0]) - 1;
    memcpy(key, k->ptr, n);
    key[n] = '\0';
    f->pushes++;
    zm_port_condvar_broadcast(&f->cond);
    zm_port_mutex_unlock(&f->lock);
}

static void *fake_reader(void *arg)
{
    fake_t *f = arg;
    while (zm_transport_read_once(&f->t) == Z_OK) {
    }
    zm_port_mutex_lock(&f->lock);
    f->closed = true;
    zm_port_condvar_broadcast(&f->cond);
    zm_port_mutex_unlock(&f->lock);
    return NULL;
}

static bool fake_open(fake_t *f, uint16_t port, uint64_t lease_ms)
{
    memset(f, 0, sizeof(*f));
    CHECK_EQ_INT(zm_port_mutex_init(&f->lock), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&f->cond), Z_OK);
    char text[64];
    snprintf(text, sizeof(text), "tcp/127.0.0.1:%u", port);
    zm_endpoint_t ep;
    zm_link_t link;
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    zm_port_random(p.zid.id, sizeof(p.zid.id));
    p.zid.id[0] |= 1u;
    p.zid.len = 16;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = 65535;
    p.lease_ms = lease_ms;
    p.qos = true;
    if (zm_endpoint_parse(&ep, text, strlen(text), ZM_ENDPOINT_CONNECT) != Z_OK || zm_link_open(&link, &ep, 2000) != Z_OK) {
        return false;
    }
    if (zm_transport_open(&f->t, &link, &p, 2000) != Z_OK) {
        zm_link_close(&link);
        return false;
    }
    f->t.on_message = fake_on_message;
    f->t.ctx = f;
    CHECK_EQ_INT(zm_port_task_start(&f->reader, fake_reader, f), Z_OK);
    return true;
}

static void fake_close(fake_t *f)
{
    zm_transport_close(&f->t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&f->reader);
    zm_transport_free(&f->t);
    zm_port_condvar_destroy(&f->cond);
    zm_port_mutex_destroy(&f->lock);
}

/* Waits until the node closed the fake's link, or until ms passed. */
static bool fake_wait_closed(fake_t *f, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    zm_port_mutex_lock(&f->lock);
    while (!f->closed && zm_port_condvar_wait_until(&f->cond, &f->lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool closed = f->closed;
    zm_port_mutex_unlock(&f->lock);
    return closed;
}

/* Waits for push number before + 1; its key is left in key. */
static bool fake_wait_push(fake_t *f, unsigned before, char *key, size_t cap, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    zm_port_mutex_lock(&f->lock);
    while (f->pushes <= before && zm_port_condvar_wait_until(&f->cond, &f->lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool got = f->pushes > before;
    snprintf(key, cap, "%s", got ? f->keys[before % 8] : "");
    zm_port_mutex_unlock(&f->lock);
    return got;
}

static unsigned fake_pushes(fake_t *f)
{
    zm_port_mutex_lock(&f->lock);
    unsigned n = f->pushes;
    zm_port_mutex_unlock(&f->lock);
    return n;
}

static z_result_t fake_declare(fake_t *f, uint8_t kind, uint32_t id, const char *key, size_t len, bool flush)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    zm_declaration_t *d = &m.body.declare.decl;
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
    if (kind == ZM_DECL_FINAL) {
        m.body.declare.has_interest_id = true;
    }
    return zm_transport_send(&f->t, &m, true, ZM_PRIO_CONTROL, flush);
}

static z_result_t fake_put(fake_t *f, const char *key, size_t len)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_PUSH;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE; /* Block: nothing of it may be dropped */
    m.body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.suffix = zm_slice(key, len);
    m.body.push.body_id = ZM_MID_PUT;
    return zm_transport_send(&f->t, &m, true, ZM_PRIO_CONTROL, true);
}

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

static uint16_t free_port(void)
{
    zm_socket_t sock;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&sock, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&sock, &port), Z_OK);
    zm_port_socket_close(&sock);
    return port;
}

static zm_session_t *node_open(uint16_t port, inbox_t *in)
{
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", port);
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.start_tasks = true;
    c.listen[0] = listen;
    c.n_listen = 1;
    zm_session_t *s = NULL;
    CHECK_EQ_INT(zm_session_open(&s, &c), Z_OK);
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
    uint16_t port = free_port();
    inbox_t in = {0};
    zm_session_t *s = node_open(port, &in);
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

/* An invalid key, or one longer than ZM_KEYEXPR_MAX, closes the link and reaches nobody. */
static void test_invalid_keys(void)
{
    uint16_t port = free_port();
    inbox_t in = {0};
    zm_session_t *s = node_open(port, &in);
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

/* s puts on key (through its declared key expression key_id, or none), then on "mark": the
 * fake must see the mark; it saw key first iff want. */
static void check_route(zm_session_t *s, fake_t *f, const char *key, uint16_t key_id, bool want)
{
    unsigned before = fake_pushes(f);
    zm_put_args_t a;
    zm_put_args_init(&a, key, strlen(key));
    a.key_id = key_id;
    a.block = true;
    CHECK_EQ_INT(zm_session_put(s, &a), Z_OK);
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

/* Puts reach a peer only while it has a matching subscriber, with a publisher and without. */
static void test_routing(void)
{
    uint16_t port = free_port();
    inbox_t in = {0};
    zm_session_t *s = node_open(port, &in);
    fake_t f;
    if (s == NULL || !fake_open(&f, port, 10000)) {
        CHECK(false);
        zm_session_close(s);
        return;
    }
    uint32_t pub = 0;
    uint16_t key_id = 0;
    CHECK_EQ_INT(zm_session_declare_publisher(s, "pub/key", 7, &pub, &key_id), Z_OK);
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
    CHECK_EQ_INT(zm_session_declare_publisher(s, "pub/late", 8, &pub2, &key_id2), Z_OK);
    before = fake_pushes(&f);
    check_route(s, &f, "pub/late", key_id2, true);
    CHECK(fake_pushes(&f) == before + 2);

    CHECK_EQ_INT(fake_declare(&f, ZM_UNDECL_SUBSCRIBER, 2000, NULL, 0, true), Z_OK);
    CHECK(fake_synced(&f, &in));
    check_route(s, &f, "pub/key", key_id, false);
    check_route(s, &f, "pub/late", key_id2, false);
    check_route(s, &f, "pub/key", 0, false);
    check_route(s, &f, "pub/other", 0, false);
    CHECK_EQ_INT(zm_session_undeclare_publisher(s, pub2), Z_OK);
    CHECK_EQ_INT(zm_session_undeclare_publisher(s, pub), Z_OK);
    fake_close(&f);
    zm_session_close(s);
}

/* A full table of peers that only hold their slot (with an absurd lease) lets a real one in. */
static void test_squatters(void)
{
    uint16_t port = free_port();
    inbox_t in = {0};
    zm_session_t *s = node_open(port, &in);
    if (s == NULL) {
        return;
    }
    static fake_t squat[ZM_PEERS_MAX];
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        CHECK(fake_open(&squat[i], port, (uint64_t)1u << 32 << 10)); /* 2^32 s and more */
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

int main(void)
{
    test_declaration_limits();
    test_invalid_keys();
    test_routing();
#if ZM_PEER_EVICT
    test_squatters();
#endif
    return CHECK_DONE();
}
