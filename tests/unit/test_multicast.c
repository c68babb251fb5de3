/*
 * The multicast transport and a session on a group, over a group of memory: a datagram link that
 * hands the session the datagrams a test makes up, each with the sender address it chooses, and
 * keeps what the session sends. No socket is opened (ctest runs on the host: no multicast here;
 * tests/interop/test_multicast.py runs real groups inside a network namespace). Checked: our JOIN
 * and what follows it, which JOINs make members, SNs per member and channel (duplicates, losses,
 * wrap, QoS priorities), fragments, the member table's bound, lease expiry and CLOSE with their
 * tokens' DELETEs, puts and gets to the group once, and no allocation per sample received.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proto/codec.h"
#include "session/internal.h"
#include "util/alloc.h"

#if Z_FEATURE_MULTICAST_TRANSPORT

/* ---- a counting allocator ---------------------------------------------------------------------- */

static atomic_long allocs;

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    atomic_fetch_add(&allocs, 1);
    return malloc(size);
}

static void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

/* ---- a group of memory ------------------------------------------------------------------------- */

#define DGRAM_MAX 9000
#define QUEUE 64

typedef struct {
    zm_addr_t from;
    size_t len;
    uint8_t data[DGRAM_MAX];
} dgram_t;

static dgram_t inbox[QUEUE]; /* what members send, handed to the session in order */
static size_t in_head, in_n;
static dgram_t outbox[QUEUE]; /* what the session sent, the first QUEUE since the last clear */
static size_t out_n;
static zm_addr_t last_from;
static bool shut; /* the group was shut down: a waiting receive returns */

/* With the session's tasks on, its reader waits in the link for what the test delivers. */
#if Z_FEATURE_MULTI_THREAD
static zm_mutex_t mem_lock;
static zm_condvar_t mem_cond;
#define MEM_LOCK() zm_port_mutex_lock(&mem_lock)
#define MEM_UNLOCK() zm_port_mutex_unlock(&mem_lock)
#else
#define MEM_LOCK() ((void)0)
#define MEM_UNLOCK() ((void)0)
#endif

static z_result_t mem_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start, uint64_t end)
{
    (void)l;
    (void)start;
    (void)end;
    MEM_LOCK();
    if (out_n < QUEUE && len <= DGRAM_MAX) {
        memcpy(outbox[out_n].data, batch, len);
        outbox[out_n].len = len;
    }
    out_n++;
    MEM_UNLOCK();
    return Z_OK;
}

static z_result_t mem_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    (void)l;
    MEM_LOCK();
#if Z_FEATURE_MULTI_THREAD
    while (wait && in_n == 0 && !shut) {
        (void)zm_port_condvar_wait_until(&mem_cond, &mem_lock, zm_port_clock_ms() + 1000u);
    }
#endif
    if (in_n == 0) {
        MEM_UNLOCK();
        return wait || shut ? ZM_E_CLOSED : ZM_E_AGAIN;
    }
    dgram_t *d = &inbox[in_head];
    in_head = (in_head + 1) % QUEUE;
    in_n--;
    z_result_t rc = ZM_E_FIELD;
    if (d->len <= cap) {
        memcpy(buf, d->data, d->len);
        *n = d->len;
        last_from = d->from;
        rc = Z_OK;
    }
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_broadcast(&mem_cond); /* room for the test's next datagram */
#endif
    MEM_UNLOCK();
    return rc;
}

static const zm_addr_t *mem_sender(const zm_link_t *l)
{
    (void)l;
    return &last_from;
}

static z_result_t mem_wait(zm_link_t *l, uint32_t timeout_ms)
{
    (void)l;
    (void)timeout_ms;
    MEM_LOCK();
    bool some = in_n > 0;
    MEM_UNLOCK();
    return some ? Z_OK : ZM_E_TIMEOUT;
}

static void mem_shutdown(zm_link_t *l)
{
    (void)l;
    MEM_LOCK();
    shut = true;
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_broadcast(&mem_cond);
#endif
    MEM_UNLOCK();
}

static void mem_nothing(zm_link_t *l) { (void)l; }

static const zm_link_ops_t mem_ops = {
    .streamed = false,
    .mtu = 65507,
    .wait_readable = mem_wait,
    .send = mem_send,
    .recv = mem_recv,
    .sender = mem_sender,
    .shutdown = mem_shutdown,
    .close = mem_nothing,
};

static zm_addr_t addr_of(uint16_t port)
{
    zm_addr_t a;
    memset(&a, 0, sizeof(a));
    z_result_t rc = zm_port_addr_resolve(&a, "127.0.0.1", port);
    CHECK_EQ_INT(rc, Z_OK);
    return a;
}

static void deliver(uint16_t port, const uint8_t *data, size_t len)
{
    zm_addr_t from = addr_of(port);
    MEM_LOCK();
#if Z_FEATURE_MULTI_THREAD
    uint64_t deadline = zm_port_clock_ms() + 10000u; /* a reader task takes them meanwhile */
    while (in_n == QUEUE && zm_port_clock_ms() < deadline) {
        (void)zm_port_condvar_wait_until(&mem_cond, &mem_lock, deadline);
    }
#endif
    CHECK(in_n < QUEUE && len <= DGRAM_MAX);
    if (in_n < QUEUE && len <= DGRAM_MAX) {
        dgram_t *d = &inbox[(in_head + in_n) % QUEUE];
        d->from = from;
        memcpy(d->data, data, len);
        d->len = len;
        in_n++;
    }
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_broadcast(&mem_cond);
#endif
    MEM_UNLOCK();
}

static zm_session_t *session;

/* Everything delivered so far goes through the session's group, as its read task would: inside
 * the session, as a thread that drives it is (zm_session_read). */
static void pump(void)
{
    zm_peer_t *g = &session->peers[ZM_GROUP_SLOT];
    zm_cb_frame_t frame = {NULL, zm_port_thread_self()};
    S_LOCK(session);
    zm_callback_enter(session, &frame);
    S_UNLOCK(session);
    while (in_n > 0) {
        z_result_t rc = zm_mcast_read(session, g, false);
        CHECK_EQ_INT(rc, Z_OK);
    }
    S_LOCK(session);
    zm_callback_leave(session, &frame);
    S_UNLOCK(session);
}

static void clear_outbox(void)
{
    MEM_LOCK();
    out_n = 0;
    MEM_UNLOCK();
}

/* ---- what members send ------------------------------------------------------------------------- */

typedef struct {
    uint8_t buf[DGRAM_MAX];
    zm_writer_t w;
} batch_t;

static void b_init(batch_t *b) { zm_writer_init(&b->w, b->buf, sizeof(b->buf)); }

static void send_batch(uint16_t port, const batch_t *b) { deliver(port, b->buf, b->w.len); }

static zm_zid_t zid_of(uint8_t n)
{
    zm_zid_t z;
    memset(&z, 0, sizeof(z));
    z.len = 3;
    z.id[0] = 0x5a;
    z.id[1] = 0xa5;
    z.id[2] = n;
    return z;
}

/* A JOIN as a Rust peer writes it; batch and resolution as given (S flag when not the defaults). */
static void b_join(batch_t *b, uint8_t zid, uint8_t whatami, uint16_t batch, uint8_t resolution, uint32_t sn_rel,
                   uint32_t sn_be, uint64_t lease_s, const zm_slice_t *qos_sns)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_JOIN;
    zm_join_t *j = &m.body.join;
    j->version = ZM_PROTO_VERSION;
    j->whatami = whatami;
    j->zid = zid_of(zid);
    j->resolution = resolution;
    j->batch_size = batch;
    j->has_size = batch != 8192 || resolution != ZM_RESOLUTION_DEFAULT;
    j->lease_secs = true;
    j->lease = lease_s;
    j->next_sn_reliable = sn_rel;
    j->next_sn_best_effort = sn_be;
    j->exts = ZM_JOIN_EXT_PATCH;
    j->patch = 1;
    if (qos_sns != NULL) {
        j->exts |= ZM_JOIN_EXT_QOS;
        j->qos_sns = *qos_sns;
    }
    z_result_t rc = zm_transport_encode(&b->w, &m);
    CHECK_EQ_INT(rc, Z_OK);
}

static void join_peer(uint16_t port, uint8_t zid, uint32_t sn, uint64_t lease_s)
{
    batch_t b;
    b_init(&b);
    b_join(&b, zid, ZM_WAI_PEER, 8192, ZM_RESOLUTION_DEFAULT, sn, sn, lease_s, NULL);
    send_batch(port, &b);
}

static void b_frame(batch_t *b, bool reliable, uint32_t sn, int prio)
{
    zm_frame_t f;
    memset(&f, 0, sizeof(f));
    f.reliable = reliable;
    f.sn = sn;
    f.has_qos = prio >= 0;
    f.qos = prio >= 0 ? (uint8_t)prio : 0;
    z_result_t rc = zm_frame_encode(&b->w, &f);
    CHECK_EQ_INT(rc, Z_OK);
}

static void b_net(batch_t *b, const zm_network_msg_t *m)
{
    z_result_t rc = zm_network_encode(&b->w, m);
    CHECK_EQ_INT(rc, Z_OK);
}

static void push_msg(zm_network_msg_t *m, const char *key, const uint8_t *payload, size_t len)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_PUSH;
    m->body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    m->body.push.wire_expr.has_suffix = true;
    m->body.push.wire_expr.suffix = zm_slice(key, strlen(key));
    m->body.push.body_id = ZM_MID_PUT;
    m->body.push.body.put.payload = zm_slice(payload, len);
}

/* One FRAME with one PUSH of a one-byte payload tag, from port. */
static void push_from(uint16_t port, bool reliable, uint32_t sn, int prio, const char *key, uint8_t tag)
{
    batch_t b;
    b_init(&b);
    b_frame(&b, reliable, sn, prio);
    zm_network_msg_t m;
    push_msg(&m, key, &tag, 1);
    b_net(&b, &m);
    send_batch(port, &b);
}

static void declare_from(uint16_t port, uint32_t sn, uint8_t kind, uint32_t id, const char *key, bool interest0)
{
    batch_t b;
    b_init(&b);
    b_frame(&b, true, sn, -1);
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.body.declare.has_interest_id = interest0;
    zm_decl_fill(&m.body.declare.decl, kind, id, key, key != NULL ? strlen(key) : 0);
    b_net(&b, &m);
    send_batch(port, &b);
}

/* ---- what the session hears ---------------------------------------------------------------------- */

static struct {
    unsigned n;
    uint8_t tags[64];
    size_t last_len;
    bool last_ok; /* the last payload was the big one's pattern */
} heard;

static void on_sample(const zm_sample_t *smp, void *ctx)
{
    (void)ctx;
    if (heard.n < sizeof(heard.tags)) {
        heard.tags[heard.n] = smp->payload.len > 0 ? smp->payload.ptr[0] : 0;
    }
    heard.n++;
    heard.last_len = smp->payload.len;
    heard.last_ok = true;
    for (size_t i = 0; i < smp->payload.len; i++) {
        heard.last_ok = heard.last_ok && smp->payload.ptr[i] == (uint8_t)(i * 7u);
    }
}

static struct {
    unsigned puts;
    unsigned deletes;
    char last[32];
} tokens_heard;

static void on_token(const zm_sample_t *smp, void *ctx)
{
    (void)ctx;
    if (smp->kind == ZM_SAMPLE_PUT) {
        tokens_heard.puts++;
    } else {
        tokens_heard.deletes++;
    }
    size_t n = smp->key_len < sizeof(tokens_heard.last) - 1 ? smp->key_len : sizeof(tokens_heard.last) - 1;
    memcpy(tokens_heard.last, smp->key, n);
    tokens_heard.last[n] = '\0';
}

static void count_member(const zm_zid_t *zid, void *ctx)
{
    (void)zid;
    (*(unsigned *)ctx)++;
}

static unsigned members(void)
{
    unsigned n = 0;
    zm_session_foreach_remote(session, 0xffu, count_member, &n);
    return n;
}

/* The transport messages of sent datagram i, the first few. */
static size_t sent_msgs(size_t i, zm_transport_msg_t *out, size_t cap, zm_network_msg_t *net, size_t *n_net)
{
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, outbox[i].data, outbox[i].len, ZM_SN_MASK_DEFAULT);
    size_t n = 0;
    *n_net = 0;
    for (;;) {
        zm_transport_msg_t m;
        bool got = false;
        if (zm_batch_next(&it, &m, &got) != Z_OK || !got) {
            return n;
        }
        if (n < cap) {
            out[n] = m;
        }
        n++;
        if (m.id == ZM_MID_FRAME) {
            zm_network_msg_t nm;
            while (zm_batch_next_network(&it, &nm, &got) == Z_OK && got) {
                if (*n_net == 0 && net != NULL) {
                    *net = nm;
                }
                (*n_net)++;
            }
        }
    }
}

/* ---- a session on the group ------------------------------------------------------------------------- */

/* A session on the group of memory; with tasks, its read and lease tasks run it. */
static void open_session_with(bool tasks)
{
    char listen[] = "tcp/127.0.0.1:0";
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.listen[0] = listen;
    c.n_listen = 1;
    c.start_tasks = tasks;
    c.group = true; /* the group comes after open, through zm_mcast_join_link */
    session = NULL;
    z_result_t rc = zm_session_open(&session, &c);
    CHECK_EQ_INT(rc, Z_OK);
    in_head = in_n = 0;
    shut = false;
    clear_outbox();
    zm_link_t link;
    zm_link_init(&link, ZM_PROTO_UDP, &mem_ops, NULL);
    rc = zm_mcast_join_link(session, &link);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK(link.ops == NULL); /* the group took it */
}

static void open_session(void) { open_session_with(false); }

static void close_session(void)
{
    zm_session_close(session);
    session = NULL;
}

/* Our JOIN first, then the D_FINAL of interest 0 on the reliable channel, at the JOIN's next SN. */
static void test_join_and_what_follows(void)
{
    open_session();
    CHECK(out_n >= 2);
    zm_transport_msg_t m[2];
    zm_network_msg_t nm;
    size_t n_net = 0;
    CHECK_EQ_INT(sent_msgs(0, m, 2, NULL, &n_net), 1);
    CHECK_EQ_INT(m[0].id, ZM_MID_JOIN);
    zm_zid_t ours;
    zm_session_zid(session, &ours);
    const zm_join_t *j = &m[0].body.join;
    CHECK_EQ_MEM(j->zid.id, j->zid.len, ours.id, ours.len);
    CHECK_EQ_INT(j->whatami, ZM_WAI_PEER);
    CHECK(!j->has_size); /* batch 8192, resolution 0x0a: what Rust takes */
    CHECK_EQ_INT(j->batch_size, 8192);
    CHECK(j->lease_secs);
    CHECK_EQ_INT(j->lease, ZM_LEASE_MS / 1000u);
    CHECK_EQ_INT(j->exts & ZM_JOIN_EXT_QOS, 0);
    CHECK_EQ_INT(j->patch, 1);
    uint32_t next = j->next_sn_reliable;
    /* then our declarations: D_FINAL of interest 0, on the Data channel (no QoS on a group) */
    CHECK_EQ_INT(sent_msgs(1, m, 2, &nm, &n_net), 1);
    CHECK_EQ_INT(m[0].id, ZM_MID_FRAME);
    CHECK(m[0].body.frame.reliable);
    CHECK(!m[0].body.frame.has_qos);
    CHECK_EQ_INT(m[0].body.frame.sn, next);
    CHECK_EQ_INT(n_net, 1);
    CHECK_EQ_INT(nm.id, ZM_MID_N_DECLARE);
    CHECK_EQ_INT(nm.body.declare.decl.kind, ZM_DECL_FINAL);
    CHECK(nm.body.declare.has_interest_id && nm.body.declare.interest_id == 0);
    /* a JOIN every interval: zp_send_join sends one now, with the SN the next frame takes */
    clear_outbox();
    z_result_t rc = zm_session_send_join(session);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 1);
    CHECK_EQ_INT(sent_msgs(0, m, 2, NULL, &n_net), 1);
    CHECK_EQ_INT(m[0].id, ZM_MID_JOIN);
    CHECK_EQ_INT(m[0].body.join.next_sn_reliable, (next + 1u) & ZM_SN_MASK_DEFAULT);
    close_session();
    /* CLOSE to the group when the session closes */
    CHECK(out_n >= 2);
    CHECK_EQ_INT(sent_msgs(out_n - 1, m, 2, NULL, &n_net), 1);
    CHECK_EQ_INT(m[0].id, ZM_MID_CLOSE);
}

/* Only a JOIN whose version, resolution and batch are ours, from a peer or router other than us,
 * makes a member; nothing else from an unknown address counts. */
static void test_who_joins(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&heard, 0, sizeof(heard));
    batch_t b;
    b_init(&b);
    b_join(&b, 1, ZM_WAI_PEER, 2048, ZM_RESOLUTION_DEFAULT, 0, 0, 10, NULL); /* pico's default batch */
    send_batch(40001, &b);
    b_init(&b);
    b_join(&b, 2, ZM_WAI_PEER, 8192, 0x05, 0, 0, 10, NULL); /* another resolution */
    send_batch(40002, &b);
    b_init(&b);
    b_join(&b, 3, ZM_WAI_CLIENT, 8192, ZM_RESOLUTION_DEFAULT, 0, 0, 10, NULL);
    send_batch(40003, &b);
    zm_transport_msg_t own;
    memset(&own, 0, sizeof(own));
    b_init(&b);
    b_join(&b, 4, ZM_WAI_PEER, 8192, ZM_RESOLUTION_DEFAULT, 0, 0, 10, NULL);
    zm_zid_t ours;
    zm_session_zid(session, &ours);
    zm_batch_iter_t it; /* the same JOIN with our zid: another socket of ours, or an impostor */
    zm_batch_iter_init(&it, b.buf, b.w.len, ZM_SN_MASK_DEFAULT);
    bool got = false;
    CHECK_EQ_INT(zm_batch_next(&it, &own, &got), Z_OK);
    own.body.join.zid = ours;
    b_init(&b);
    CHECK_EQ_INT(zm_transport_encode(&b.w, &own), Z_OK);
    send_batch(40004, &b);
    push_from(40005, true, 0, -1, "mc/x", 1); /* frames before a JOIN mean nothing */
    pump();
    CHECK_EQ_INT(members(), 0);
    CHECK_EQ_INT(heard.n, 0);

    join_peer(40005, 5, 7, 10);
    push_from(40005, true, 7, -1, "mc/x", 2);
    join_peer(40005, 5, 7, 10); /* the same JOIN again: nothing changes */
    join_peer(40006, 6, 0, 10); /* a router may join too */
    pump();
    CHECK_EQ_INT(members(), 2);
    CHECK_EQ_INT(heard.n, 1);
    /* a JOIN that contradicts the first (another zid on the same address) is ignored: the member
     * stays, and its frames still count */
    join_peer(40005, 9, 0, 10);
    push_from(40005, true, 8, -1, "mc/x", 3);
    pump();
    CHECK_EQ_INT(members(), 2);
    CHECK_EQ_INT(heard.n, 2);
    /* from then on only its own JOINs keep it: silent on them for longer than its lease, it goes
     * however much else comes from its address, and the newcomer is taken at its next JOIN */
    zm_peer_t *m = NULL;
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        if (session->peers[i].state == PEER_LIVE && session->peers[i].t.remote_zid.id[2] == 5) {
            m = &session->peers[i];
        }
    }
    CHECK(m != NULL);
    if (m != NULL) {
        uint32_t now = (uint32_t)zm_port_clock_ms();
        CHECK(!zm_mcast_member_expired(&m->t, now));
        atomic_store(&m->t.join_ms, now - 10001u);
        CHECK(zm_mcast_member_expired(&m->t, now));
    }
    rc = zm_session_send_keep_alive(session); /* expires it */
    CHECK_EQ_INT(rc, Z_OK);
    rc = zm_session_send_keep_alive(session); /* reaps it */
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(members(), 1);
    join_peer(40005, 9, 0, 10);
    push_from(40005, true, 0, -1, "mc/x", 4);
    pump();
    CHECK_EQ_INT(members(), 2);
    CHECK_EQ_INT(heard.n, 3);
    close_session();
}

/* A FRAME forged from a member's address far ahead of its SNs (but inside the window) keeps its
 * own FRAMEs out only until its next JOIN, which moves the channel back to what it announces; a
 * FRAME outside the window, or beyond the SN resolution, is dropped and the member stays. */
static void test_forged_sn_undone_by_join(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&heard, 0, sizeof(heard));
    join_peer(44001, 1, 100, 10);
    push_from(44001, true, 100, -1, "mc/a", 1);
    push_from(44001, true, 100u + 0x08000000u, -1, "mc/a", 99); /* half the space ahead: outside */
    push_from(44001, true, 100u + 0x80000000u, -1, "mc/a", 99); /* beyond the resolution */
    push_from(44001, true, 101, -1, "mc/a", 2);
    push_from(44001, true, 101u + 0x07fffff0u, -1, "mc/a", 3); /* forged: inside, far ahead */
    push_from(44001, true, 102, -1, "mc/a", 99);                /* its own: behind now */
    pump();
    CHECK_EQ_INT(heard.n, 3);
    join_peer(44001, 1, 102, 10); /* its own JOIN: 102 is next on both channels */
    push_from(44001, true, 102, -1, "mc/a", 4);
    push_from(44001, false, 102, -1, "mc/a", 5); /* best effort: not moved back (not ahead) */
    pump();
    CHECK_EQ_INT(heard.n, 5);
    static const uint8_t want[] = {1, 2, 3, 4, 5};
    CHECK_EQ_MEM(heard.tags, heard.n < 5 ? heard.n : 5, want, sizeof(want));
    CHECK_EQ_INT(members(), 1);
    close_session();
}

/* A full table makes room for a newcomer: the member evicted is the one heard from least recently
 * among those without data (none since their JOIN, or none for ZM_LEASE_MS); a member that sends
 * data keeps its place; when all did lately, the newcomer is ignored. */
static void test_full_table_evicts_idlest(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&heard, 0, sizeof(heard));
    for (unsigned i = 0; i < ZM_MCAST_PEERS_MAX; i++) {
        join_peer((uint16_t)(45000 + i), (uint8_t)(10 + i), 0, 60);
        if (i % 2 == 0) {
            push_from((uint16_t)(45000 + i), true, 0, -1, "mc/d", (uint8_t)i); /* the even ones publish */
        }
        pump();
    }
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX);
    /* the odd ones only JOIN; member 3 was heard from least recently of them */
    uint32_t now = (uint32_t)zm_port_clock_ms();
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *p = &session->peers[i];
        uint8_t z = p->t.remote_zid.id[2];
        (void)zm_transport_heard_ms(&p->t, now); /* the lease looked: heard since is cleared */
        atomic_store(&p->t.last_rx_ms, now - (z == 13 ? 5000u : (z % 2 == 0) ? 9000u : 1000u));
    }
    join_peer(45100, 100, 0, 10);
    push_from(45100, true, 0, -1, "mc/new", 100); /* taken at once: its data counts */
    pump();
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX);
    CHECK_EQ_INT(heard.n, (int)ZM_MCAST_PEERS_MAX / 2 + 1);
    bool gone = true, newcomer = false;
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *p = &session->peers[i];
        if (p->state == PEER_LIVE) {
            gone = gone && p->t.remote_zid.id[2] != 13;
            newcomer = newcomer || p->t.remote_zid.id[2] == 100;
        }
    }
    CHECK(gone);
    CHECK(newcomer);
    /* a member whose data is older than ZM_LEASE_MS is idle again */
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *p = &session->peers[i];
        if (p->t.remote_zid.id[2] == 10) {
            p->t.data_ms = now - ZM_LEASE_MS - 1000u;
            atomic_store(&p->t.last_rx_ms, now - 30000u);
        }
    }
    join_peer(45101, 101, 0, 10);
    pump();
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *p = &session->peers[i];
        CHECK(p->state != PEER_LIVE || p->t.remote_zid.id[2] != 10);
    }
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX);
    /* every member sent data lately: a newcomer is ignored */
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *p = &session->peers[i];
        p->t.has_data = true;
        p->t.data_ms = now;
    }
    join_peer(45102, 102, 0, 10);
    push_from(45102, true, 0, -1, "mc/late", 102);
    pump();
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX);
    CHECK_EQ_INT(heard.n, (int)ZM_MCAST_PEERS_MAX / 2 + 1);
    close_session();
}

/* Each member's SNs per channel, from its JOIN: duplicates and late frames dropped, losses let go,
 * the SN space wrapping, and with QoS one channel per priority. */
static void test_sn_per_member(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&heard, 0, sizeof(heard));
    join_peer(41001, 1, 100, 10);
    batch_t b;
    b_init(&b);
    b_join(&b, 2, ZM_WAI_PEER, 8192, ZM_RESOLUTION_DEFAULT, 0x0fffffffu, 50, 10, NULL);
    send_batch(41002, &b);
    push_from(41001, true, 100, -1, "mc/a", 1);   /* the first expected */
    push_from(41001, true, 100, -1, "mc/a", 99);  /* a duplicate */
    push_from(41001, true, 99, -1, "mc/a", 99);   /* before the first */
    push_from(41001, true, 103, -1, "mc/a", 2);   /* 101 and 102 lost: taken anyway */
    push_from(41001, true, 101, -1, "mc/a", 99);  /* late */
    push_from(41001, false, 100, -1, "mc/a", 3);  /* best effort: a channel of its own */
    push_from(41002, true, 0x0fffffffu, -1, "mc/b", 4);
    push_from(41002, true, 0, -1, "mc/b", 5);     /* wrapped */
    push_from(41002, true, 103, -1, "mc/b", 6);   /* A's SNs are not B's */
    push_from(41002, false, 50, -1, "mc/b", 7);
    pump();
    CHECK_EQ_INT(heard.n, 7);
    static const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7};
    CHECK_EQ_MEM(heard.tags, heard.n < 7 ? heard.n : 7, want, sizeof(want));
    CHECK_EQ_INT(members(), 2);

    /* a member with QoS: eight priorities, each with its own pair of SNs */
    uint8_t pairs[64];
    zm_writer_t w;
    zm_writer_init(&w, pairs, sizeof(pairs));
    for (unsigned prio = 0; prio < 8; prio++) {
        CHECK_EQ_INT(zm_write_zint(&w, 1000u + prio), Z_OK);
        CHECK_EQ_INT(zm_write_zint(&w, 2000u + prio), Z_OK);
    }
    zm_slice_t sns = zm_slice(pairs, w.len);
    b_init(&b);
    b_join(&b, 3, ZM_WAI_PEER, 8192, ZM_RESOLUTION_DEFAULT, 0, 0, 10, &sns);
    send_batch(41003, &b);
    memset(&heard, 0, sizeof(heard));
    push_from(41003, true, 1001, 1, "mc/c", 1);
    push_from(41003, true, 1005, -1, "mc/c", 2); /* Data, priority 5, has no QoS extension */
    push_from(41003, true, 1001, 1, "mc/c", 99);
    push_from(41003, false, 2007, 7, "mc/c", 3);
    pump();
    CHECK_EQ_INT(heard.n, 3);
    CHECK_EQ_MEM(heard.tags, heard.n < 3 ? heard.n : 3, want, 3);
    CHECK_EQ_INT(members(), 3);
    /* a member without QoS sending on another priority is broken: dropped, the group stays */
    push_from(41001, true, 104, 1, "mc/a", 99);
    pump();
    CHECK_EQ_INT(members(), 2);
    CHECK_EQ_INT(heard.n, 3);
    close_session();
}

/* A message larger than a batch, in FRAGMENTs from a member: reassembled; one with a fragment lost,
 * dropped; then the member goes on. */
static void test_fragments(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&heard, 0, sizeof(heard));
    join_peer(42001, 1, 10, 10);
    static uint8_t big[20000];
    for (size_t i = 0; i < sizeof(big); i++) {
        big[i] = (uint8_t)(i * 7u);
    }
    static uint8_t whole[21000];
    zm_writer_t w;
    zm_writer_init(&w, whole, sizeof(whole));
    zm_network_msg_t m;
    push_msg(&m, "mc/big", big, sizeof(big));
    CHECK_EQ_INT(zm_network_encode(&w, &m), Z_OK);
    for (int round = 0; round < 2; round++) {
        size_t off = 0;
        uint32_t sn = round == 0 ? 10 : 13;
        for (unsigned k = 0; k < 3; k++, sn++) {
            size_t chunk = k < 2 ? 8000 : w.len - off;
            zm_fragment_t f;
            memset(&f, 0, sizeof(f));
            f.reliable = true;
            f.sn = sn;
            f.first = k == 0;
            f.more = k < 2;
            f.payload = zm_slice(whole + off, chunk);
            off += chunk;
            if (round == 1 && k == 1) {
                continue; /* lost */
            }
            batch_t b;
            b_init(&b);
            CHECK_EQ_INT(zm_fragment_encode(&b.w, &f), Z_OK);
            send_batch(42001, &b);
        }
        pump();
    }
    CHECK_EQ_INT(heard.n, 1);
    CHECK_EQ_INT(heard.last_len, sizeof(big));
    CHECK(heard.last_ok);
    push_from(42001, true, 16, -1, "mc/after", 1);
    pump();
    CHECK_EQ_INT(heard.n, 2);
    CHECK_EQ_INT(members(), 1);
    close_session();
}

/* JOINs from more addresses than ZM_MCAST_PEERS_MAX: that many members and no more, for no
 * allocation at all; a member that stops expires at its lease's end, its tokens DELETEs; one
 * that sends CLOSE goes at once; the free slots take newcomers again. */
static void test_bound_and_lease(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_liveliness_subscriber(session, "mc/**", 5, false, on_token, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&tokens_heard, 0, sizeof(tokens_heard));
    long before = atomic_load(&allocs);
    for (unsigned i = 0; i < ZM_MCAST_PEERS_MAX + 20u; i++) {
        join_peer((uint16_t)(43000 + i), (uint8_t)(10 + i), 0, i == 0 ? 1 : 10);
        if (i < ZM_MCAST_PEERS_MAX) { /* data: no newcomer evicts them */
            push_from((uint16_t)(43000 + i), false, 0, -1, "mc/data", 0);
        }
        pump();
    }
    CHECK_EQ_INT(atomic_load(&allocs) - before, 0);
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX);

    /* the first member (lease 1 s) has a token; the second leaves with CLOSE */
    declare_from(43000, 0, ZM_DECL_TOKEN, 5, "mc/tok", false);
    declare_from(43001, 0, ZM_DECL_TOKEN, 5, "mc/tok2", false);
    pump();
    CHECK_EQ_INT(tokens_heard.puts, 2);
    uint8_t close[2] = {ZM_MID_CLOSE, ZM_CLOSE_GENERIC};
    deliver(43001, close, sizeof(close));
    pump();
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX - 1);
    rc = zm_session_send_keep_alive(session); /* reaps it: its token goes */
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(tokens_heard.deletes, 1);
    CHECK_EQ_STR(tokens_heard.last, "mc/tok2");

    /* silent for longer than its lease: the clock of its last datagram moved back 1.5 s */
    zm_peer_t *first = NULL;
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        if (session->peers[i].state == PEER_LIVE && session->peers[i].t.remote_zid.id[2] == 10) {
            first = &session->peers[i];
        }
    }
    CHECK(first != NULL);
    if (first != NULL) {
        uint32_t now = (uint32_t)zm_port_clock_ms();
        CHECK(!zm_mcast_member_expired(&first->t, now));
        atomic_store(&first->t.last_rx_ms, now - 1500u);
        CHECK(zm_mcast_member_expired(&first->t, now));
    }
    rc = zm_session_send_keep_alive(session); /* expires it */
    CHECK_EQ_INT(rc, Z_OK);
    rc = zm_session_send_keep_alive(session); /* reaps it */
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX - 2);
    CHECK_EQ_INT(tokens_heard.deletes, 2);
    CHECK_EQ_STR(tokens_heard.last, "mc/tok");
    /* room again: two of those ignored come in */
    join_peer(43000 + ZM_MCAST_PEERS_MAX, 200, 0, 10);
    join_peer(43000 + ZM_MCAST_PEERS_MAX + 1, 201, 0, 10);
    join_peer(43000 + ZM_MCAST_PEERS_MAX + 2, 202, 0, 10);
    pump();
    CHECK_EQ_INT(members(), ZM_MCAST_PEERS_MAX);
    close_session();
}

/* Samples from members in steady state allocate nothing. */
static void test_no_alloc_per_sample(void)
{
    open_session();
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    memset(&heard, 0, sizeof(heard));
    join_peer(44001, 1, 0, 10);
    join_peer(44002, 2, 0, 10);
    uint32_t sn = 0;
    for (; sn < 10; sn++) {
        push_from(44001, true, sn, -1, "mc/warm", 1);
        pump();
    }
    long before = atomic_load(&allocs);
    for (unsigned i = 0; i < 1000; i++, sn++) {
        push_from(i % 2 ? 44002 : 44001, (i & 2) == 0, i % 2 ? i / 2 : sn, -1, "mc/steady", 2);
        pump();
    }
    CHECK_EQ_INT(atomic_load(&allocs) - before, 0);
    CHECK_EQ_INT(heard.n, 1010);
    close_session();
}

#if Z_FEATURE_QUERYABLE
static void on_query(zm_query_in_t *q, void *ctx)
{
    (void)ctx;
    zm_reply_args_t r;
    memset(&r, 0, sizeof(r));
    r.kind = ZM_REPLY_OK;
    zm_put_args_init(&r.put, "mc/qq", 5);
    z_result_t rc = zm_session_reply(session, &q->route, &r);
    CHECK_EQ_INT(rc, Z_OK);
}

#endif

/* Puts and declarations go to the group once, whatever the number of members, with full keys
 * (no key expression is declared on the group), and no queryable is declared there. */
static void test_put_once(void)
{
    open_session();
    for (unsigned i = 0; i < 3; i++) {
        join_peer((uint16_t)(45001 + i), (uint8_t)(1 + i), 0, 10);
    }
    pump();
    z_result_t rc = zm_session_send_keep_alive(session); /* the newcomers' JOIN and declarations */
    CHECK_EQ_INT(rc, Z_OK);
    uint32_t pub_id;
    uint16_t key_id;
    clear_outbox();
    rc = zm_session_declare_keyexpr(session, "mc/pub", 6, &key_id);
    CHECK_EQ_INT(rc, Z_OK);
    rc = zm_session_declare_publisher(session, key_id, &pub_id);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 0); /* its key expression is not declared on the group */
    zm_put_args_t a;
    zm_put_args_init(&a, "mc/pub", 6);
    a.key_id = key_id;
    uint8_t payload[4] = {1, 2, 3, 4};
    a.body.payload = zm_slice(payload, sizeof(payload));
    rc = zm_session_put(session, &a);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 1);
    zm_transport_msg_t m[2];
    zm_network_msg_t nm;
    size_t n_net = 0;
    CHECK_EQ_INT(sent_msgs(0, m, 2, &nm, &n_net), 1);
    CHECK_EQ_INT(n_net, 1);
    CHECK_EQ_INT(nm.id, ZM_MID_N_PUSH);
    CHECK_EQ_INT(nm.body.push.wire_expr.scope, 0);
    CHECK_EQ_MEM(nm.body.push.wire_expr.suffix.ptr, nm.body.push.wire_expr.suffix.len, "mc/pub", 6);
    /* a subscriber is declared there, a queryable is not */
    clear_outbox();
    uint32_t sid;
    rc = zm_session_declare_subscriber(session, "mc/s", 4, ZM_LOCALITY_ANY, on_sample, NULL, NULL, &sid);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 1);
    CHECK_EQ_INT(sent_msgs(0, m, 2, &nm, &n_net), 1);
    CHECK_EQ_INT(nm.body.declare.decl.kind, ZM_DECL_SUBSCRIBER);
#if Z_FEATURE_QUERYABLE
    clear_outbox();
    rc = zm_session_declare_queryable(session, "mc/q", 4, true, ZM_LOCALITY_ANY, on_query, NULL, NULL, &sid);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 0);
#endif
    close_session();
}

#if Z_FEATURE_QUERY
static struct {
    unsigned replies;
    bool ended;
} got;

static void on_reply(const zm_reply_in_t *r, void *ctx)
{
    (void)ctx;
    (void)r;
    got.replies++;
}

static void on_get_end(void *ctx)
{
    (void)ctx;
    got.ended = true;
}

static void response_from(uint16_t port, uint32_t sn, uint32_t rid, const char *key, bool final)
{
    batch_t b;
    b_init(&b);
    b_frame(&b, true, sn, -1);
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    if (final) {
        m.id = ZM_MID_N_RESPONSE_FINAL;
        m.body.response_final.rid = rid;
    } else {
        static const uint8_t payload[] = "answer";
        m.id = ZM_MID_N_RESPONSE;
        m.body.response.rid = rid;
        m.body.response.wire_expr.mapping = ZM_MAPPING_SENDER;
        m.body.response.wire_expr.has_suffix = true;
        m.body.response.wire_expr.suffix = zm_slice(key, strlen(key));
        m.body.response.body_id = ZM_MID_REPLY;
        m.body.response.body.reply.body_id = ZM_MID_PUT;
        m.body.response.body.reply.body.put.payload = zm_slice(payload, 6);
    }
    b_net(&b, &m);
    send_batch(port, &b);
}

/* A get goes to the group once and waits for the members that ended their initial declarations
 * (zmote nodes), not for the others (Rust's, which never answer on a group). */
static void test_gets(void)
{
    open_session();
    join_peer(46001, 1, 0, 10); /* answers: it sent D_FINAL of interest 0 */
    declare_from(46001, 0, ZM_DECL_FINAL, 0, NULL, true);
    join_peer(46002, 2, 0, 10); /* a Rust peer: never answers */
    pump();
    zm_get_args_t a;
    memset(&a, 0, sizeof(a));
    a.key = "mc/q/**";
    a.key_len = 7;
    a.target = ZM_TARGET_BEST_MATCHING;
    a.consolidation = ZM_CONSOLIDATION_NONE;
    a.priority = ZM_PRIO_DATA;
    a.destination = ZM_LOCALITY_REMOTE;
    a.timeout_ms = 60000;
    memset(&got, 0, sizeof(got));
    clear_outbox();
    uint32_t rid = 0;
    z_result_t rc = zm_session_get(session, &a, on_reply, on_get_end, NULL, &rid);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 1);
    zm_transport_msg_t m[2];
    zm_network_msg_t nm;
    size_t n_net = 0;
    CHECK_EQ_INT(sent_msgs(0, m, 2, &nm, &n_net), 1);
    CHECK_EQ_INT(nm.id, ZM_MID_N_REQUEST);
    CHECK_EQ_INT(nm.body.request.rid, rid);
    CHECK(!got.ended);
    response_from(46002, 0, rid + 1, "mc/q/x", false); /* another get's reply, seen on the group */
    response_from(46001, 1, rid, "mc/q/a", false);
    response_from(46001, 2, rid, NULL, true);
    pump();
    CHECK_EQ_INT(got.replies, 1);
    CHECK(got.ended);

    /* with no member that answers, a get ends at once, having gone to the group all the same */
    a.timeout_ms = 60000;
    memset(&got, 0, sizeof(got));
    zm_peer_t *answering = NULL;
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        if (session->peers[i].state == PEER_LIVE && session->peers[i].declared) {
            answering = &session->peers[i];
        }
    }
    CHECK(answering != NULL);
    uint8_t close[2] = {ZM_MID_CLOSE, ZM_CLOSE_GENERIC};
    deliver(46001, close, sizeof(close));
    pump();
    clear_outbox();
    rc = zm_session_get(session, &a, on_reply, on_get_end, NULL, &rid);
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(out_n, 1);
    CHECK(got.ended);
    close_session();
}
#endif

#if Z_FEATURE_QUERYABLE
/* A member's request is answered on the group: its reply, then its final response. */
static void test_queryable_answers_member(void)
{
    open_session();
    uint32_t qid;
    z_result_t rc = zm_session_declare_queryable(session, "mc/qq", 5, true, ZM_LOCALITY_ANY, on_query, NULL, NULL,
                                                 &qid);
    CHECK_EQ_INT(rc, Z_OK);
    join_peer(47001, 1, 0, 10);
    batch_t b;
    b_init(&b);
    b_frame(&b, true, 0, -1);
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_REQUEST;
    m.body.request.rid = 77;
    m.body.request.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.request.wire_expr.has_suffix = true;
    m.body.request.wire_expr.suffix = zm_slice("mc/qq", 5);
    b_net(&b, &m);
    send_batch(47001, &b);
    clear_outbox();
    pump();
    bool reply = false, final = false;
    for (size_t i = 0; i < out_n && i < QUEUE; i++) {
        zm_batch_iter_t it;
        zm_batch_iter_init(&it, outbox[i].data, outbox[i].len, ZM_SN_MASK_DEFAULT);
        zm_transport_msg_t tm;
        bool got_one = false;
        while (zm_batch_next(&it, &tm, &got_one) == Z_OK && got_one) {
            zm_network_msg_t nm;
            while (tm.id == ZM_MID_FRAME && zm_batch_next_network(&it, &nm, &got_one) == Z_OK && got_one) {
                reply = reply || (nm.id == ZM_MID_N_RESPONSE && nm.body.response.rid == 77);
                final = final || (nm.id == ZM_MID_N_RESPONSE_FINAL && nm.body.response_final.rid == 77);
            }
        }
    }
    CHECK(reply);
    CHECK(final);
    close_session();
}
#endif

#if Z_FEATURE_MULTI_THREAD
/* What the tasks' callbacks saw, under a lock of its own, with a condition to wait on. */
static zm_mutex_t seen_lock;
static zm_condvar_t seen_cond;
static unsigned seen_samples, seen_deletes;

static void seen_sample(const zm_sample_t *smp, void *ctx)
{
    (void)smp;
    (void)ctx;
    zm_port_mutex_lock(&seen_lock);
    seen_samples++;
    zm_port_condvar_broadcast(&seen_cond);
    zm_port_mutex_unlock(&seen_lock);
}

static void seen_token(const zm_sample_t *smp, void *ctx)
{
    (void)ctx;
    zm_port_mutex_lock(&seen_lock);
    seen_deletes += smp->kind == ZM_SAMPLE_DELETE;
    zm_port_condvar_broadcast(&seen_cond);
    zm_port_mutex_unlock(&seen_lock);
}

/* Waits up to timeout_ms until *counter reaches want; false if it did not. */
static bool seen_wait(const unsigned *counter, unsigned want, uint32_t timeout_ms)
{
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    zm_port_mutex_lock(&seen_lock);
    while (*counter < want && zm_port_clock_ms() < deadline) {
        (void)zm_port_condvar_wait_until(&seen_cond, &seen_lock, deadline);
    }
    bool ok = *counter >= want;
    zm_port_mutex_unlock(&seen_lock);
    return ok;
}

/* With the session's tasks: its read task takes the members' samples while the test puts to the
 * group, its lease task answers the newcomers and drops a member at its lease's end (its token a
 * DELETE), and close wakes the reader waiting in the link. */
static void test_tasks(void)
{
    open_session_with(true);
    uint32_t id;
    z_result_t rc = zm_session_declare_subscriber(session, "mc/**", 5, ZM_LOCALITY_REMOTE, seen_sample, NULL, NULL,
                                                  &id);
    CHECK_EQ_INT(rc, Z_OK);
    rc = zm_session_declare_liveliness_subscriber(session, "mc/**", 5, false, seen_token, NULL, NULL, &id);
    CHECK_EQ_INT(rc, Z_OK);
    join_peer(48001, 1, 0, 1); /* lease 1 s: it stops after its token */
    join_peer(48002, 2, 0, 10);
    declare_from(48001, 0, ZM_DECL_TOKEN, 3, "mc/t", false);
    uint8_t payload[8] = {0};
    zm_put_args_t a;
    zm_put_args_init(&a, "mc/out", 6);
    a.body.payload = zm_slice(payload, sizeof(payload));
    for (uint32_t sn = 0; sn < 200; sn++) {
        push_from(48002, true, sn, -1, "mc/in", 1);
        rc = zm_session_put(session, &a);
        CHECK_EQ_INT(rc, Z_OK);
    }
    CHECK(seen_wait(&seen_samples, 200, 10000));
    CHECK(seen_wait(&seen_deletes, 1, 10000)); /* 48001 silent: expired by the lease task */
    for (uint32_t sn = 200; sn < 210; sn++) {
        push_from(48002, true, sn, -1, "mc/in", 1); /* 48002 is still there */
    }
    CHECK(seen_wait(&seen_samples, 210, 10000));
    close_session();
}
#endif

int main(void)
{
#if Z_FEATURE_MULTI_THREAD
    if (zm_port_mutex_init(&mem_lock) != Z_OK || zm_port_condvar_init(&mem_cond) != Z_OK ||
        zm_port_mutex_init(&seen_lock) != Z_OK || zm_port_condvar_init(&seen_cond) != Z_OK) {
        return 1;
    }
#endif
    static const zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_join_and_what_follows();
    test_who_joins();
    test_sn_per_member();
    test_fragments();
    test_bound_and_lease();
    test_forged_sn_undone_by_join();
    test_full_table_evicts_idlest();
    test_no_alloc_per_sample();
    test_put_once();
#if Z_FEATURE_QUERY
    test_gets();
#endif
#if Z_FEATURE_QUERYABLE
    test_queryable_answers_member();
#endif
#if Z_FEATURE_MULTI_THREAD
    test_tasks();
#endif
    zm_allocator_set(NULL);
    return CHECK_DONE();
}

#else
int main(void)
{
    printf("test_multicast: this build has no multicast transport\n");
    return CHECK_DONE();
}
#endif
