/*
 * The unicast transport over real loopback TCP: both handshake roles, small messages batched
 * into FRAMEs, messages too large for a batch cut into FRAGMENTs and reassembled, keep-alives,
 * lease expiry and CLOSE; then congestion control towards a peer that stops reading (BLOCK
 * fails after its timeout, DROP drops and counts, lease tick and close never wait on a stuck
 * sender) and the lease clock. Waits are on the other threads' own progress, bounded by deadlines.
 */
#include <stdlib.h>

#include "check.h"
#include "transport/internal.h"
#include "transport/transport.h"

typedef struct {
    zm_mutex_t lock;
    zm_condvar_t cond;
    unsigned count;
    size_t bytes;
    bool bad; /* a payload was not what was sent */
} rx_log_t;

static void on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)t;
    (void)reliable;
    rx_log_t *log = ctx;
    zm_port_mutex_lock(&log->lock);
    if (m->id == ZM_MID_N_PUSH && m->body.push.body_id == ZM_MID_PUT) {
        zm_slice_t p = m->body.push.body.put.payload;
        for (size_t i = 0; i < p.len; i++) {
            if (p.ptr[i] != (uint8_t)(i * 7u + p.len)) {
                log->bad = true;
                break;
            }
        }
        log->bytes += p.len;
    }
    log->count++;
    zm_port_condvar_broadcast(&log->cond);
    zm_port_mutex_unlock(&log->lock);
}

static bool wait_count(rx_log_t *log, unsigned n, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    zm_port_mutex_lock(&log->lock);
    while (log->count < n) {
        if (zm_port_condvar_wait_until(&log->cond, &log->lock, deadline) == ZM_E_TIMEOUT) {
            break;
        }
    }
    bool ok = log->count >= n;
    zm_port_mutex_unlock(&log->lock);
    return ok;
}

typedef struct {
    zm_transport_t t;
    rx_log_t log;
    zm_task_t reader;
    z_result_t read_rc;
} side_t;

static void *read_loop(void *arg)
{
    side_t *s = arg;
    z_result_t rc;
    do {
        rc = zm_transport_read_once(&s->t);
    } while (rc == Z_OK);
    s->read_rc = rc;
    return NULL;
}

typedef struct {
    zm_link_t listener;
    side_t *side;
    zm_transport_params_t params;
    z_result_t rc;
} acceptor_t;

static void *accept_main(void *arg)
{
    acceptor_t *a = arg;
    zm_link_t link;
    a->rc = zm_link_accept(&a->listener, &link, 5000);
    if (a->rc == Z_OK) {
        a->rc = zm_transport_accept(&a->side->t, &link, &a->params, 5000);
    }
    return NULL;
}

static zm_transport_params_t params(uint8_t id, uint8_t whatami, uint16_t batch, uint32_t lease)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid.len = 2;
    p.zid.id[0] = id;
    p.zid.id[1] = 0x5a;
    p.whatami = whatami;
    p.batch_size = batch;
    p.lease_ms = lease;
    p.qos = true;
    return p;
}

static void side_init(side_t *s)
{
    memset(s, 0, sizeof(*s));
    CHECK_EQ_INT(zm_port_mutex_init(&s->log.lock), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&s->log.cond), Z_OK);
}

/* The account and reassembly a session would give its transports, shared by every side here. */
static zm_account_t account;
static zm_defrag_share_t share = {&account, NULL, ATOMIC_FLAG_INIT};

static void side_wire(side_t *s)
{
    s->t.on_message = on_message;
    s->t.ctx = &s->log;
    s->t.share = &share;
    CHECK_EQ_INT(zm_port_task_start(&s->reader, read_loop, s), Z_OK);
}

/* Opens a pair: a accepts, b connects; returns false if the handshake failed. a_reads false
 * leaves a without a read task: a peer that stops reading (its link is never read). */
static bool pair_open_ex(side_t *a, side_t *b, uint16_t batch_a, uint16_t batch_b, uint32_t lease_b, bool a_reads)
{
    side_init(a);
    side_init(b);
    zm_endpoint_t ep;
    const char *listen = "tcp/127.0.0.1:0";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, listen, strlen(listen), ZM_ENDPOINT_LISTEN), Z_OK);
    acceptor_t acc;
    memset(&acc, 0, sizeof(acc));
    CHECK_EQ_INT(zm_link_listen(&acc.listener, &ep), Z_OK);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&acc.listener, &port), Z_OK);
    acc.side = a;
    acc.params = params(1, ZM_WAI_PEER, batch_a, 10000);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, accept_main, &acc), Z_OK);

    char conn[64];
    snprintf(conn, sizeof(conn), "tcp/127.0.0.1:%u", port);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, conn, strlen(conn), ZM_ENDPOINT_CONNECT), Z_OK);
    zm_link_t link;
    CHECK_EQ_INT(zm_link_open(&link, &ep, 5000), Z_OK);
    zm_transport_params_t pb = params(2, ZM_WAI_CLIENT, batch_b, lease_b);
    z_result_t rc = zm_transport_open(&b->t, &link, &pb, 5000);
    CHECK_EQ_INT(rc, Z_OK);
    zm_port_task_join(&task);
    zm_link_close(&acc.listener);
    CHECK_EQ_INT(acc.rc, Z_OK);
    if (rc != Z_OK || acc.rc != Z_OK) {
        return false;
    }
    /* what each side learnt of the other */
    CHECK_EQ_INT(a->t.remote_zid.id[0], 2);
    CHECK_EQ_INT(b->t.remote_zid.id[0], 1);
    CHECK_EQ_INT(a->t.remote_whatami, ZM_WAI_CLIENT);
    CHECK_EQ_INT(b->t.remote_whatami, ZM_WAI_PEER);
    uint16_t expect = batch_a < batch_b ? batch_a : batch_b;
    CHECK_EQ_INT(a->t.batch_size, expect);
    CHECK_EQ_INT(b->t.batch_size, expect);
    CHECK(a->t.qos && b->t.qos);
    CHECK_EQ_INT(a->t.patch, 1);
    CHECK_EQ_INT(a->t.remote_lease_ms, lease_b < ZM_LEASE_MAX_MS ? lease_b : ZM_LEASE_MAX_MS);
    if (a_reads) {
        side_wire(a);
    }
    side_wire(b);
    return true;
}

static bool pair_open(side_t *a, side_t *b, uint16_t batch_a, uint16_t batch_b, uint32_t lease_b)
{
    return pair_open_ex(a, b, batch_a, batch_b, lease_b, true);
}

static void pair_close(side_t *a, side_t *b)
{
    zm_transport_close(&b->t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&b->reader);
    zm_port_task_join(&a->reader);
    /* a saw the CLOSE (or the end of the stream) */
    CHECK(a->read_rc == ZM_E_CLOSED);
    zm_transport_close(&a->t, ZM_CLOSE_GENERIC);
    zm_transport_free(&a->t);
    zm_transport_free(&b->t);
    zm_port_condvar_destroy(&a->log.cond);
    zm_port_mutex_destroy(&a->log.lock);
    zm_port_condvar_destroy(&b->log.cond);
    zm_port_mutex_destroy(&b->log.lock);
}

static uint8_t big[1u << 20];

/* Ends a pair whose side a never read: both links shut, b's reader joined (unless the test did
 * already), all freed. */
static void pair_close_unread(side_t *a, side_t *b, bool b_joined)
{
    zm_transport_close(&a->t, ZM_CLOSE_GENERIC);
    zm_transport_close(&b->t, ZM_CLOSE_GENERIC);
    if (!b_joined) {
        zm_port_task_join(&b->reader);
    }
    zm_transport_free(&a->t);
    zm_transport_free(&b->t);
    zm_port_condvar_destroy(&a->log.cond);
    zm_port_mutex_destroy(&a->log.lock);
    zm_port_condvar_destroy(&b->log.cond);
    zm_port_mutex_destroy(&b->log.lock);
}

/* A PUT with the given congestion control; the payload is a pattern the receiver checks. */
static z_result_t send_put_cc(zm_transport_t *t, size_t size, bool flush, bool block)
{
    for (size_t i = 0; i < size; i++) {
        big[i] = (uint8_t)(i * 7u + size);
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_PUSH;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.suffix = zm_slice("test/unicast", 12);
    m.body.push.body_id = ZM_MID_PUT;
    m.body.push.body.put.payload = zm_slice(big, size);
    if (block) {
        m.ext.present = ZM_NET_EXT_QOS;
        m.ext.qos = ZM_QOS_BLOCK | ZM_PRIO_DATA;
    }
    return zm_transport_send(t, &m, true, ZM_PRIO_DATA, flush);
}

/* A PUT whose delivery the test counts on: BLOCK, so congestion control never drops it. */
static z_result_t send_put(zm_transport_t *t, size_t size, bool flush)
{
    return send_put_cc(t, size, flush, true);
}

static void test_pubsub_both_ways(void)
{
    side_t a, b;
    if (!pair_open(&a, &b, 65535, 2048, 10000)) {
        return;
    }
    static const size_t sizes[] = {0, 8, 1000, 2040, 5000, 65536, 1u << 20};
    size_t total = 0;
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(send_put(&b.t, sizes[i], false), Z_OK);
        CHECK_EQ_INT(send_put(&a.t, sizes[i], false), Z_OK);
        total += sizes[i];
    }
    CHECK(wait_count(&a.log, ZM_ARRAY_LEN(sizes), 5000));
    CHECK(wait_count(&b.log, ZM_ARRAY_LEN(sizes), 5000));
    CHECK_EQ_INT(a.log.bytes, total);
    CHECK_EQ_INT(b.log.bytes, total);
    CHECK(!a.log.bad && !b.log.bad);

    /* batching: 100 small puts stay in one batch until flushed */
    zm_transport_set_batching(&b.t, true);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_INT(send_put(&b.t, 8, false), Z_OK);
    }
    CHECK(b.t.tx.len > 0);
    CHECK_EQ_INT(zm_transport_flush(&b.t), Z_OK);
    CHECK_EQ_INT(b.t.tx.len, 0);
    CHECK(wait_count(&a.log, ZM_ARRAY_LEN(sizes) + 100, 5000));
    zm_transport_set_batching(&b.t, false);

    /* An idle link sends keep-alives (its tx state: only this thread sends). A send reads no
     * clock: the lease tick dates it to its own last look, never later than the send. */
    uint64_t now = zm_port_clock_ms();
    CHECK_EQ_INT(send_put(&b.t, 8, false), Z_OK);
    CHECK(b.t.tx_sent);
    b.t.tx_looked_ms = (uint32_t)now;
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK); /* data went since a look just now: no keep-alive */
    CHECK(!b.t.tx_sent);
    CHECK(b.t.last_tx_ms - (uint32_t)now < 1000u);
    CHECK_EQ_INT(send_put(&b.t, 8, false), Z_OK);
    b.t.tx_looked_ms = (uint32_t)(now - 3000); /* data went, but perhaps right after a look 3 s ago */
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    CHECK(b.t.tx_sent); /* so a keep-alive went out */
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    CHECK(!b.t.tx_sent && b.t.last_tx_ms - (uint32_t)now < 1000u); /* dated by the tick that sent it */
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    CHECK(!b.t.tx_sent); /* not idle any more */
    b.t.last_tx_ms = (uint32_t)(now - 3000); /* nothing sent for 3 s */
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    CHECK(b.t.tx_sent); /* a keep-alive went out */
    CHECK(wait_count(&a.log, ZM_ARRAY_LEN(sizes) + 102, 5000));
    /* the peer's silence is noticed after its lease */
    atomic_store(&b.t.last_rx_ms, (uint32_t)(now - 20001));
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), ZM_E_TIMEOUT);
    pair_close(&a, &b);
}

/* The acceptor agrees a smaller batch than the opener proposed: the opener's receive buffer is
 * only as large as the batch agreed, and takes the largest batches the acceptor sends (FRAMEs
 * filled to the last byte, the FRAGMENTs of large messages). */
static void test_agreed_batch(void)
{
    side_t a, b;
    if (!pair_open(&a, &b, 2048, 65535, 10000)) {
        return;
    }
#if ZM_RX_AGREED
    CHECK_EQ_INT(b.t.rx_cap, 2048u + ZM_LINK_HEADROOM);
#endif
    static const size_t sizes[] = {8, 2000, 2020, 2030, 2040, 5000, 65536, 1u << 20};
    size_t total = 0;
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(send_put(&a.t, sizes[i], true), Z_OK);
        total += sizes[i];
    }
    CHECK(wait_count(&b.log, ZM_ARRAY_LEN(sizes), 5000));
    CHECK_EQ_INT(b.log.bytes, total);
    CHECK(!b.log.bad);
    /* batched: the acceptor's batches are full ones */
    zm_transport_set_batching(&a.t, true);
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ_INT(send_put(&a.t, 100, false), Z_OK);
    }
    CHECK_EQ_INT(zm_transport_flush(&a.t), Z_OK);
    CHECK(wait_count(&b.log, ZM_ARRAY_LEN(sizes) + 1000, 5000));
    CHECK(!b.log.bad);
    pair_close(&a, &b);
}

static void test_lease_units(void)
{
    side_t a, b;
    /* a lease that is not whole seconds travels in milliseconds */
    if (!pair_open(&a, &b, 4096, 4096, 2500)) {
        return;
    }
    CHECK_EQ_INT(a.t.remote_lease_ms, 2500);
    CHECK_EQ_INT(b.t.remote_lease_ms, 10000);
    pair_close(&a, &b);
}

#define WAIT_MS 10000u /* an upper bound for things that must not hang; never reached */

/* BLOCK towards a peer that stops reading: the send fails after the block timeout, the link is
 * declared dead and shut (b's reader returns), instead of blocking for ever. */
static void test_block_timeout(void)
{
    side_t a, b;
    if (!pair_open_ex(&a, &b, 65535, 65535, 10000, false)) {
        return;
    }
    b.t.tx_block_timeout_ms = 200;
    z_result_t rc = Z_OK;
    uint64_t took = 0;
    for (int i = 0; i < 10000 && rc == Z_OK; i++) {
        uint64_t t0 = zm_port_clock_ms();
        rc = send_put(&b.t, 60000, false);
        took = zm_port_clock_ms() - t0;
    }
    CHECK_EQ_INT(rc, ZM_E_TIMEOUT);
    CHECK(took < WAIT_MS / 2); /* about the block timeout, nowhere near for ever */
    zm_port_task_join(&b.reader); /* the dead link was shut: the reader returned */
    CHECK_EQ_INT(b.read_rc, ZM_E_CLOSED);
    CHECK(send_put(&b.t, 10, false) != Z_OK);
    pair_close_unread(&a, &b, true);
}

/* DROP towards a peer that stops reading: every send returns Z_OK promptly and the dropped ones
 * are counted; once the peer reads again, what was not dropped arrives and messages flow. */
static void test_drop_when_not_read(void)
{
    side_t a, b;
    if (!pair_open_ex(&a, &b, 65535, 65535, 10000, false)) {
        return;
    }
    unsigned sent = 0;
    uint64_t slowest = 0;
    for (int i = 0; i < 200000 && b.t.tx_dropped < 20; i++) {
        uint64_t t0 = zm_port_clock_ms();
        z_result_t rc = send_put_cc(&b.t, 1000, false, false);
        uint64_t took = zm_port_clock_ms() - t0;
        slowest = took > slowest ? took : slowest;
        CHECK_EQ_INT(rc, Z_OK);
        if (rc != Z_OK) {
            break;
        }
        sent++;
    }
    CHECK(b.t.tx_dropped >= 20);
    CHECK(slowest < WAIT_MS / 4); /* a drop never waits like a BLOCK send */
    CHECK(b.t.tx_congested);
    unsigned kept = sent - (unsigned)b.t.tx_dropped;

    /* The peer reads again: everything that was not dropped arrives, nothing more, intact. */
    side_wire(&a);
    CHECK(wait_count(&a.log, kept, WAIT_MS));
    /* A BLOCK message waits for room, and with it out the congested state ends. */
    CHECK_EQ_INT(send_put(&b.t, 100, false), Z_OK);
    CHECK(!b.t.tx_congested);
    uint64_t dropped = b.t.tx_dropped;
    for (int i = 0; i < 10; i++) {
        CHECK_EQ_INT(send_put_cc(&b.t, 200, false, false), Z_OK);
    }
    CHECK_EQ_INT(b.t.tx_dropped, dropped);
    CHECK(wait_count(&a.log, kept + 11, WAIT_MS));
    zm_port_mutex_lock(&a.log.lock);
    CHECK_EQ_INT(a.log.count, kept + 11);
    CHECK(!a.log.bad);
    zm_port_mutex_unlock(&a.log.lock);
    pair_close(&a, &b);
}

/* A sender that keeps sending BLOCK messages until one fails; progress counted under log.lock. */
typedef struct {
    side_t *side;
    rx_log_t log;
    unsigned sent;
    bool done;
    z_result_t rc;
} pusher_t;

static void *pusher_main(void *arg)
{
    pusher_t *p = arg;
    z_result_t rc;
    do {
        rc = send_put(&p->side->t, 60000, false);
        zm_port_mutex_lock(&p->log.lock);
        p->sent += rc == Z_OK;
        zm_port_condvar_broadcast(&p->log.cond);
        zm_port_mutex_unlock(&p->log.lock);
    } while (rc == Z_OK);
    zm_port_mutex_lock(&p->log.lock);
    p->done = true;
    p->rc = rc;
    zm_port_condvar_broadcast(&p->log.cond);
    zm_port_mutex_unlock(&p->log.lock);
    return NULL;
}

/* True once the pusher holds the transport and made no progress for 300 ms: it waits for room. */
static bool wait_stuck(pusher_t *p, uint64_t deadline)
{
    while (zm_port_clock_ms() < deadline) {
        zm_port_mutex_lock(&p->log.lock);
        unsigned before = p->sent;
        uint64_t quiet = zm_port_clock_ms() + 300u;
        while (p->sent == before && !p->done &&
               zm_port_condvar_wait_until(&p->log.cond, &p->log.lock, quiet) != ZM_E_TIMEOUT) {
        }
        bool still = p->sent == before && !p->done;
        zm_port_mutex_unlock(&p->log.lock);
        if (still && !zm_port_mutex_trylock(&p->side->t.tx_lock)) {
            return true;
        }
        if (still) {
            zm_port_mutex_unlock(&p->side->t.tx_lock);
        }
    }
    return false;
}

/* While a sender is stuck on a peer that stopped reading, the lease tick and close return at
 * once, and the close frees the stuck sender. */
static void test_stuck_sender(void)
{
    side_t a, b;
    if (!pair_open_ex(&a, &b, 65535, 65535, 10000, false)) {
        return;
    }
    b.t.tx_block_timeout_ms = 3u * WAIT_MS; /* only the close can free the sender in time */
    pusher_t p;
    memset(&p, 0, sizeof(p));
    p.side = &b;
    CHECK_EQ_INT(zm_port_mutex_init(&p.log.lock), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&p.log.cond), Z_OK);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, pusher_main, &p), Z_OK);
    CHECK(wait_stuck(&p, zm_port_clock_ms() + WAIT_MS));

    atomic_store(&b.t.last_rx_ms, (uint32_t)zm_port_clock_ms());
    uint64_t t0 = zm_port_clock_ms();
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    CHECK(zm_port_clock_ms() - t0 < WAIT_MS / 4);

    /* a DROP message does not queue behind the stuck writer: it is dropped at once */
    t0 = zm_port_clock_ms();
    CHECK_EQ_INT(send_put_cc(&b.t, 0, true, false), Z_OK);
    CHECK(zm_port_clock_ms() - t0 < WAIT_MS / 4);
    CHECK_EQ_INT(atomic_load(&b.t.tx_stuck_dropped), 1);

    t0 = zm_port_clock_ms();
    zm_transport_close(&b.t, ZM_CLOSE_GENERIC);
    CHECK(zm_port_clock_ms() - t0 < WAIT_MS / 4);
    zm_port_mutex_lock(&p.log.lock);
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    while (!p.done && zm_port_condvar_wait_until(&p.log.cond, &p.log.lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool done = p.done;
    z_result_t rc = p.rc;
    zm_port_mutex_unlock(&p.log.lock);
    CHECK(done);
    CHECK(rc != Z_OK);
    zm_port_task_join(&task);
    pair_close_unread(&a, &b, false);
    zm_port_condvar_destroy(&p.log.cond);
    zm_port_mutex_destroy(&p.log.lock);
}

/* The lease clock: a last_rx stored after the tick read the clock is no silence (no wrap to
 * "silent for 49 days"), and an absurd lease from the peer is clamped, so it can expire: in
 * milliseconds as a zmote peer could announce it, and as the wire can carry it (2^32 s, 2^64 ms). */
static void test_lease_clock(void)
{
    zm_open_t o = {.lease_secs = true, .lease = 1ull << 32};
    CHECK_EQ_INT(zm_transport_open_lease_ms(&o), ZM_LEASE_MAX_MS);
    o.lease_secs = false;
    o.lease = UINT64_MAX;
    CHECK_EQ_INT(zm_transport_open_lease_ms(&o), ZM_LEASE_MAX_MS);
    side_t a, b;
    if (!pair_open(&a, &b, 4096, 4096, UINT32_MAX)) {
        return;
    }
    CHECK_EQ_INT(a.t.remote_lease_ms, ZM_LEASE_MAX_MS);
    uint64_t now = zm_port_clock_ms();
    atomic_store(&b.t.last_rx_ms, (uint32_t)(now + 1000u));
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    atomic_store(&b.t.last_rx_ms, (uint32_t)(now + 0x7fffffffu));
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    atomic_store(&a.t.last_rx_ms, (uint32_t)(now - ZM_LEASE_MAX_MS - 1000u));
    CHECK_EQ_INT(zm_transport_lease_tick(&a.t), ZM_E_TIMEOUT);
    pair_close(&a, &b);
}

static void test_refused(void)
{
    /* nothing listens: the connect fails cleanly */
    zm_endpoint_t ep;
    const char *listen = "tcp/127.0.0.1:0";
    zm_link_t l;
    CHECK_EQ_INT(zm_endpoint_parse(&ep, listen, strlen(listen), ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_link_listen(&l, &ep), Z_OK);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&l, &port), Z_OK);
    zm_link_close(&l);
    char conn[64];
    snprintf(conn, sizeof(conn), "tcp/127.0.0.1:%u", port);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, conn, strlen(conn), ZM_ENDPOINT_CONNECT), Z_OK);
    zm_link_t c;
    CHECK(zm_link_open(&c, &ep, 2000) != Z_OK);
}

int main(void)
{
    test_pubsub_both_ways();
    test_agreed_batch();
    test_lease_units();
    test_block_timeout();
    test_drop_when_not_read();
    test_stuck_sender();
    test_lease_clock();
    test_refused();
    return CHECK_DONE();
}
